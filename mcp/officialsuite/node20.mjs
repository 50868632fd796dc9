// Runs the pinned suite on Node 20: its bundle imports globSync from 'fs', which Node
// adds in 22. This hook gives the suite's bundle an 'fs' with a globSync of its own;
// everything else is Node's.
import { register } from 'node:module';
register('./node20-hooks.mjs', import.meta.url);
