/** Where the Restate peer's durable chain is invoked: `POST <ingress>/BenchChain/run`. */
export const RESTATE_SERVICE = 'BenchChain';
export const RESTATE_HANDLER = 'run';
