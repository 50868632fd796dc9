#!/usr/bin/env node
// storecheck's launcher. npm installed, of the optional dependencies, the one platform
// package whose os and cpu match this machine; this runs its binary with our arguments
// and exits with its status.
"use strict";
const { spawnSync } = require("child_process");

// Filled in by release/cmd/dist: "platform arch" to the package holding that binary.
const platforms = __PLATFORMS__;

const key = `${process.platform} ${process.arch}`;
const pkg = platforms[key];
if (!pkg) {
  console.error(`storecheck: no binary for ${key}; there are: ${Object.keys(platforms).join(", ")}`);
  process.exit(2);
}
const exe = process.platform === "win32" ? "storecheck.exe" : "storecheck";
let bin;
try {
  bin = require.resolve(`${pkg}/bin/${exe}`);
} catch {
  console.error(`storecheck: ${pkg} is not installed (installed with --omit=optional?)`);
  process.exit(2);
}
const r = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (r.error) {
  console.error(`storecheck: ${bin}: ${r.error.message}`);
  process.exit(2);
}
if (r.signal) {
  process.kill(process.pid, r.signal);
}
process.exit(r.status);
