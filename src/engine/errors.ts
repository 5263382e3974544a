// The engine's refusals are BatonErrors, named in src/model/named-errors.ts.
export { EngineError } from '../model/errors';
