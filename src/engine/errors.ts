// A command the execution's state refuses: the API answers 409 (conflict), 404 (notFound) or 400 (invalid).

export class EngineError extends Error {
  constructor(
    readonly kind: 'conflict' | 'notFound' | 'invalid',
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}
