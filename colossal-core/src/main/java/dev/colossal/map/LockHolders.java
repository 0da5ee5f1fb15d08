package dev.colossal.map;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Which thread of this process holds each segment's lock, shared by every open of one file in this
 * process. The lock word in the file names the process, not the thread (see {@link OwnerLock}), so
 * a thread that held a segment through one open and asked for it through another (a compute
 * function reading a second {@code ColossalMap} of the same file, opened elsewhere in the program)
 * waited for itself for ever; with the holders shared, it is told, as through a single open.
 */
final class LockHolders {

    /** Per file key, while some open of the file lasts. */
    private static final ConcurrentHashMap<Object, LockHolders> BY_FILE = new ConcurrentHashMap<>();

    private final Object fileKey;
    private final AtomicReferenceArray<Thread> holders;
    /** Opens sharing these holders; changed only inside {@link #BY_FILE}'s compute for the key. */
    private int opens;

    private LockHolders(Object fileKey, int segments) {
        this.fileKey = fileKey;
        this.holders = new AtomicReferenceArray<>(segments);
    }

    /**
     * The holders of the file's segments, shared with this process's other opens of it; each call
     * needs a {@link #release}. A file system without file keys gives each open its own, as before.
     */
    static LockHolders of(Object fileKey, int segments) {
        if (fileKey == null) {
            return new LockHolders(null, segments);
        }
        return BY_FILE.compute(fileKey, (k, shared) -> {
            LockHolders h = shared != null && shared.holders.length() == segments ? shared : new LockHolders(k, segments);
            h.opens++;
            return h;
        });
    }

    /** Ends one open's share; the last one forgets the file. */
    void release() {
        if (fileKey != null) {
            BY_FILE.computeIfPresent(fileKey, (k, shared) -> shared != this || --shared.opens > 0 ? shared : null);
        }
    }

    Thread get(int segment) {
        return holders.get(segment);
    }

    void set(int segment, Thread holder) {
        holders.set(segment, holder);
    }
}
