#!/usr/bin/env -S node --max-semi-space-size=32
'use strict';
// Runs the CLI in this process (no wrapper), so signals sent to this pid reach `gateway start`.
// The shebang's V8 flag is the gateway's heap tuning (docs/data-plane.md, "Heap"): a proxy
// allocates per request at a steady, high rate, and with V8's default 16 MiB semi-spaces its young
// generation settles at a size where the old-generation limit keeps triggering full collections.
require('../dist/main.js');
