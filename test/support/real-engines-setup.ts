// jest setupFiles entry of the real-engine suite: makes the started services' addresses visible to every test file.
import { loadServiceEnv } from './real-engines';

loadServiceEnv();
