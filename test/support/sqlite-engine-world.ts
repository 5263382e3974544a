import { createScriptEngine, type ScriptEngine } from '../../src/scripting/script-engine';
import { openSqliteStores, type SqliteStores } from '../../src/store/sqlite';
import { tempDir } from './temp-dirs';

/** A script engine and SQLite stores in a temporary directory, opened before the enclosing block's tests and closed after them. */
export function sqliteEngineWorld(prefix: string): { readonly scripts: ScriptEngine; readonly stores: SqliteStores } {
  let scripts: ScriptEngine | undefined;
  let stores: SqliteStores | undefined;
  beforeAll(async () => {
    scripts = await createScriptEngine({ workers: 1 });
    stores = openSqliteStores(tempDir(prefix));
  });
  afterAll(async () => {
    await scripts?.dispose();
    await stores?.close();
  });
  return {
    get scripts() {
      return scripts!;
    },
    get stores() {
      return stores!;
    },
  };
}
