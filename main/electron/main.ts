/**
 * Electron main-process entry (built to out/main/index.js). All wiring is in app-lifecycle.ts.
 */
import { runApp } from './app-lifecycle';

runApp(import.meta.url);
