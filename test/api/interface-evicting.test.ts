import { startBaton } from '../support/baton';
import { describeInterface } from './interface-suite';

// The interface suite again, with at most 10 actor activations in memory: executions and idle
// queues are deactivated and reloaded from the store between nearly every call.

describeInterface(async () => {
  const b = await startBaton({ BATON_ACTOR_MAX_ACTIVE: '10' });
  return { url: () => b.url, stop: () => b.stop() };
});
