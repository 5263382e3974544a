import { startBaton } from '../support/baton';
import { describeInterface } from './interface-suite';

// The service interface, row by row, over real HTTP against the embedded server.

describeInterface(async () => {
  const b = await startBaton();
  return { url: () => b.url, stop: () => b.stop() };
});
