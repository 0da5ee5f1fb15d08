package dev.colossal.server;

/**
 * The last bytes of the replication stream (Redis's {@code repl-backlog-size}), so that a replica
 * whose link broke can ask for what it missed ({@code PSYNC replid offset}) instead of a whole new
 * snapshot. The stream's bytes are numbered from 1, as Redis numbers them: after {@code n} bytes
 * {@link #offset} is {@code n}, and a replica that has read them asks for byte {@code n + 1}.
 *
 * <pre>
 *   ring (capacity bytes, reused from the start once full)
 *   +-----------------------------+---------------------------+
 *   | newest bytes ...         end| oldest bytes kept ...     |
 *   +-----------------------------+---------------------------+
 *   0                          head                        capacity
 *   byte number of ring[head] (once full) = offset - capacity + 1
 * </pre>
 *
 * Guarded by its owner ({@link Replicas}), which appends and reads under one monitor.
 */
final class ReplicationBacklog {

    private byte[] ring;
    /** Where the next byte goes. */
    private int head;
    /** Bytes kept: at most the ring's length. */
    private int kept;
    /** The number of the last byte appended: Redis's {@code master_repl_offset}. */
    private long offset;

    ReplicationBacklog(int capacity) {
        this.ring = new byte[capacity];
    }

    long offset() {
        return offset;
    }

    /** @return the number of the oldest byte kept: Redis's {@code repl_backlog_first_byte_offset} */
    long firstByte() {
        return offset - kept + 1;
    }

    int kept() {
        return kept;
    }

    int capacity() {
        return ring.length;
    }

    /** Empties the ring and numbers the next byte {@code offset + 1}: a stream that goes on from an earlier one. */
    void startAt(long offset) {
        this.offset = offset;
        head = 0;
        kept = 0;
    }

    void append(byte[] b) {
        offset += b.length;
        int from = Math.max(0, b.length - ring.length); // a write longer than the ring keeps its tail
        for (int i = from; i < b.length; ) {
            int n = Math.min(b.length - i, ring.length - head);
            System.arraycopy(b, i, ring, head, n);
            head = (head + n) % ring.length;
            i += n;
        }
        kept = (int) Math.min(ring.length, (long) kept + b.length);
    }

    /** @return whether byte {@code from} and all after it are kept (or {@code from} is the next byte) */
    boolean holds(long from) {
        return from >= firstByte() && from <= offset + 1;
    }

    /** @return the bytes from number {@code from} to the end; {@link #holds} must be true */
    byte[] since(long from) {
        int n = (int) (offset + 1 - from);
        byte[] out = new byte[n];
        int start = Math.floorMod(head - n, ring.length);
        for (int i = 0; i < n; ) {
            int take = Math.min(n - i, ring.length - start);
            System.arraycopy(ring, start, out, i, take);
            start = (start + take) % ring.length;
            i += take;
        }
        return out;
    }

    /** CONFIG SET repl-backlog-size: keeps the newest bytes that fit the new size. */
    void resize(int capacity) {
        if (capacity == ring.length) {
            return;
        }
        byte[] keep = since(offset + 1 - Math.min(kept, capacity));
        ring = new byte[capacity];
        head = keep.length % capacity;
        System.arraycopy(keep, 0, ring, 0, keep.length);
        kept = keep.length;
    }
}
