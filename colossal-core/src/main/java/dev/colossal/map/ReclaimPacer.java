package dev.colossal.map;

/**
 * Paces the scans a full disk sets off ({@link Segment#reclaimElsewhere}): a scan rebuilds every
 * other segment to find chunks they hold nothing in, and gives what it finds to the file's spare
 * extents, where every segment takes from. So one scan serves the whole map, and another is worth
 * it only once this process removed something since, or after a quiet period in which another
 * process may have. Each segment used to keep its own pace: on a full 4 GiB xfs every put that
 * needed space, in each of the 64 segments in turn, scanned the whole map (1.1-1.6 s each), and on
 * btrfs 20-26 s each, so a writer on a full disk stalled rather than failed. The quiet period grows
 * with what the last scan cost (ten times it, at least a second), so a full disk costs at most a
 * tenth of the time in scans. One open's segments share one pacer.
 */
final class ReclaimPacer {

    /** The shortest quiet period, what every segment waited before. */
    static final long MIN_QUIET_NANOS = 1_000_000_000L;
    /** The quiet period as a multiple of the last scan's duration. */
    static final int QUIET_PER_SCAN = 10;

    private long removalsAtScan = -1;
    private long scanEnd;
    private long quietNanos = MIN_QUIET_NANOS;
    private boolean scanning;
    private long scans;

    /**
     * Whether a scan should run now; if so it counts as started and {@link #finished} must follow.
     *
     * @param removals what this process's segments removed so far (a racy sum: only a hint)
     * @param now {@link System#nanoTime()}
     * @return false while another segment scans (its finds serve this one too) or nothing changed
     */
    synchronized boolean tryStart(long removals, long now) {
        if (scanning || removals == removalsAtScan && now - scanEnd < quietNanos) {
            return false;
        }
        scanning = true;
        removalsAtScan = removals;
        scans++;
        return true;
    }

    /** Ends the scan {@link #tryStart} allowed, which ran from {@code start} to {@code end}. */
    synchronized void finished(long start, long end) {
        scanning = false;
        scanEnd = end;
        quietNanos = Math.max(MIN_QUIET_NANOS, QUIET_PER_SCAN * (end - start));
    }

    /** {@return how many scans ran (tests)} */
    synchronized long scans() {
        return scans;
    }
}
