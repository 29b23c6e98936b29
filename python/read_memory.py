# Peak memory of `read` over a 1M-line file in batches of 100,000 (at most 64 MB above the
# arrays it returns). Usage: python python/read_memory.py FILE
import resource
import sys

import sudoku_batch as sb

base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
n = 0
for batch in sb.read(sys.argv[1], batch=100_000):
    n += batch.shape[0]
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(n, "rows; peak RSS", peak/1024, "MB; before", base/1024, "MB; increase", (peak-base)/1024, "MB; one batch", 100_000*81/1e6, "MB")
