import { TestEnvironment } from 'jest-environment-node';
import { removeDirs, TEMP_DIRS_GLOBAL } from './temp-dirs';

/** jest's node environment, plus: the temporary directories a test file made (tempDir) go when the file ends. */
export default class BatonTestEnvironment extends TestEnvironment {
  private readonly dirs: string[] = [];

  override async setup(): Promise<void> {
    await super.setup();
    this.global[TEMP_DIRS_GLOBAL] = this.dirs;
  }

  override async teardown(): Promise<void> {
    removeDirs(this.dirs);
    await super.teardown();
  }
}
