import type { Actor } from './ports';

/**
 * The optional hooks of `inner`, for a wrapper to pass through unchanged. A wrapper that dropped one
 * turned its feature off without a sign: without `holdsClaim` the Dapr host ran no turn in process, so
 * every deadline became a reminder in Dapr's scheduler and every call to itself a round trip through daprd.
 */
export const actorHooks = (inner: Actor): Omit<Actor, 'invoke' | 'onReminder'> => ({
  onActivate: inner.onActivate && (() => inner.onActivate!()),
  onDeactivate: inner.onDeactivate && (() => inner.onDeactivate!()),
  keepAlive: inner.keepAlive && (() => inner.keepAlive!()),
  holdsClaim: inner.holdsClaim && ((turn) => inner.holdsClaim!(turn)),
});
