#!/usr/bin/env python3
"""Rewrites a callgrind dump's JIT addresses (fn=/cfn= names of the form 0x...) with the names of
node's --perf-basic-prof map (/tmp/perf-<pid>.map), so callgrind_annotate shows JS functions.
Usage: perf-names.py <perf map> <dump> > <named dump>. Later map entries win (code space reused)."""
import bisect, re, sys

def load(path):
    entries = {}
    with open(path, errors='replace') as f:
        for line in f:
            parts = line.rstrip('\n').split(' ', 2)
            if len(parts) < 3:
                continue
            start, size = int(parts[0], 16), int(parts[1], 16)
            entries[start] = (start + size, parts[2].replace(' ', '_'))
    starts = sorted(entries)
    return starts, [entries[s] for s in starts]

starts, ranges = load(sys.argv[1])
NAME = re.compile(r'^((?:c?fn)=(?:\(\d+\) )?)(0x[0-9a-fA-F]+)$')
def name_of(addr):
    i = bisect.bisect_right(starts, addr) - 1
    if i >= 0 and addr < ranges[i][0]:
        return ranges[i][1]
    return None

out = sys.stdout
with open(sys.argv[2], errors='replace') as f:
    for line in f:
        m = NAME.match(line.rstrip('\n'))
        if m:
            addr = int(m.group(2), 16)
            name = name_of(addr)
            if name is not None:
                line = f'{m.group(1)}{name}@{m.group(2)}\n'
        out.write(line)
