package dev.colossal.map;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntToLongFunction;

/**
 * Which thread of this process holds each segment's lock, and the line its other threads wait in,
 * shared by every open of one file in this process. The lock word in the file names the process,
 * not the thread (see {@link OwnerLock}), so a thread that held a segment through one open and
 * asked for it through another (a compute function reading a second {@code ColossalMap} of the
 * same file, opened elsewhere in the program) waited for itself for ever; with the holders shared,
 * it is told, as through a single open.
 *
 * <p>A thread that does not get the word by spinning and yielding a while (a short wait, see
 * {@link OwnerLock#acquireSpinning}) waits in its segment's {@linkplain #line line}: only the first
 * in line polls the word (with {@link OwnerLock#backoff}), the others park until it has the lock.
 * Polling alone, each waiter woke every 640 us at most: 2000 virtual threads waiting for a compute
 * function that blocked (a request waiting on a remote call) kept a core busy. Short waits stay out
 * of the line: parking there and being woken costs more than the hold of a hot key's merge.
 *
 * <p>They also know which lock words named this process before it first opened the file: a copy
 * ({@code Files.copy}, {@code cp}) made while one of its threads held a lock there carries this
 * process's own token, which no liveness check can call gone, so the copy's segment waited for
 * ever. No thread can hold a lock in a file its process has not opened, so such a word is taken
 * over once, by the first thread that waits for it, and its segment repaired as after a crash.
 */
final class LockHolders {

    /** Per file key, while some open of the file lasts. */
    private static final ConcurrentHashMap<Object, LockHolders> BY_FILE = new ConcurrentHashMap<>();

    private final Object fileKey;
    private final AtomicReferenceArray<Thread> holders;
    private final ReentrantLock[] lines;
    /**
     * 1 for each lock (the segments', then the file lock) whose word named this process before its
     * first open of the file, until a thread takes it over.
     */
    private final AtomicIntegerArray copiedOwnWords;
    /** Opens sharing these holders; changed only inside {@link #BY_FILE}'s compute for the key. */
    private int opens;

    private LockHolders(Object fileKey, int segments) {
        this.fileKey = fileKey;
        this.holders = new AtomicReferenceArray<>(segments);
        this.lines = new ReentrantLock[segments];
        for (int i = 0; i < segments; i++) {
            lines[i] = new ReentrantLock();
        }
        this.copiedOwnWords = new AtomicIntegerArray(segments + 1);
    }

    /**
     * The holders of the file's segments, shared with this process's other opens of it; each call
     * needs a {@link #release}. A file system without file keys gives each open its own, as before,
     * and no word is taken for a copied one: another open of the file may hold it.
     *
     * @param lockWord reads lock {@code i}'s word ({@link #fileLock()} for the file lock), for the
     *                 first open in this process to note the words it did not write
     */
    static LockHolders of(Object fileKey, int segments, IntToLongFunction lockWord) {
        if (fileKey == null) {
            return new LockHolders(null, segments);
        }
        return BY_FILE.compute(fileKey, (k, shared) -> {
            LockHolders h = shared;
            if (h == null || h.holders.length() != segments) {
                // Inside compute, so no other open of the file in this process can lock anything meanwhile.
                h = new LockHolders(k, segments);
                for (int i = 0; i <= segments; i++) {
                    if (lockWord.applyAsLong(i) == OwnerLock.SELF) {
                        h.copiedOwnWords.set(i, 1);
                    }
                }
            }
            h.opens++;
            return h;
        });
    }

    /** The index of the file lock among the locks of {@link #takeOverCopiedWord}. */
    int fileLock() {
        return holders.length();
    }

    /**
     * Whether lock {@code lock}'s word, which names this process, came with the file, not from a
     * thread of this process; true for one caller only, who then holds the lock.
     */
    boolean takeOverCopiedWord(int lock) {
        return copiedOwnWords.compareAndSet(lock, 1, 0);
    }

    /** Whether lock {@code lock}'s word came with the file and no thread has taken it over yet. */
    boolean hasCopiedWord(int lock) {
        return copiedOwnWords.get(lock) == 1;
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

    /**
     * Names the thread that holds segment {@code segment}'s lock word, or null as it lets go. A
     * release store: the only reader that acts on the name is the thread asking whether it is the
     * holder, which always sees its own stores, and every other thread sees someone else's thread
     * or null, either of which means "not me". A volatile store's full fence, twice a write, cost
     * ~20 ns of a 16-byte put's ~170.
     */
    void set(int segment, Thread holder) {
        holders.setRelease(segment, holder);
    }

    /**
     * The line this process's threads wait in for the segment's lock word; held while polling it,
     * never while holding the word, so a thread in line waits only for threads in front of it.
     */
    ReentrantLock line(int segment) {
        return lines[segment];
    }
}
