import { startBaton } from '../support/baton';
import { describeInterface } from './interface-suite';

// The interface suite (every call a client of Baton makes, one by one) over real HTTP against the embedded server.

describeInterface(async () => {
  const b = await startBaton();
  return { url: () => b.url, stop: () => b.stop() };
});
