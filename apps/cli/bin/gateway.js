#!/usr/bin/env node
'use strict';
// Runs the CLI in this process (no wrapper), so signals sent to this pid reach `gateway start`.
require('../dist/main.js');
