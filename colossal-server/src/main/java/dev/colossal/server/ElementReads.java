package dev.colossal.server;

import dev.colossal.map.BytesMap;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Answers a run of one list's elements as bulk replies, each copied by the map straight into the
 * reply buffer behind its header (as GET's value is): no key or value array per element, and one
 * copy of its bytes instead of two; a pop takes its element the same way, read and removed in one
 * lookup. One per thread ({@link #mine}), reused by every command the thread runs.
 */
final class ElementReads {

    private static final ThreadLocal<ElementReads> MINE = ThreadLocal.withInitial(ElementReads::new);

    private final byte[] keyBytes = new byte[ListLayout.ELEMENT_KEY_LENGTH];
    private final MemorySegment key = MemorySegment.ofArray(keyBytes);
    /** Where {@link #take(BytesMap, long, long)} copies an element before it becomes an array. */
    private MemorySegment taken = MemorySegment.ofArray(new byte[64]);

    private ElementReads() {}

    /** @return this thread's reader */
    static ElementReads mine() {
        return MINE.get();
    }

    /**
     * Appends to {@code r} the elements at positions {@code [from, to)} of collection {@code id}, in
     * order, each a bulk reply.
     *
     * @throws IllegalStateException if one is missing: the element map is damaged
     */
    void reply(BytesMap map, long id, long from, long to, Reply r) {
        for (long p = from; p < to; p++) {
            toReply(map, id, p, r, false);
        }
    }

    /** Appends the element at {@code position} of collection {@code id} to {@code r}, removing it if {@code take}. */
    private void toReply(BytesMap map, long id, long position, Reply r, boolean take) {
        ListLayout.putElementKey(keyBytes, 0, id, position);
        long at = r.valueSlot(0);
        long n;
        while ((n = take ? map.take(key, r.segment(), at) : map.get(key, r.segment(), at)) > r.room(at)) {
            r.ensureSlot(at, n);
        }
        if (n < 0) {
            throw missing(id, position);
        }
        r.bulkAt(at, (int) n);
    }

    /**
     * Removes the element at {@code position} of collection {@code id} and appends it to {@code r}
     * as a bulk reply, copied by the map straight into the reply buffer.
     *
     * @throws IllegalStateException if it is missing: the element map is damaged
     */
    void take(BytesMap map, long id, long position, Reply r) {
        toReply(map, id, position, r, true);
    }

    /**
     * Removes the element at {@code position} of collection {@code id}.
     *
     * @return its bytes
     * @throws IllegalStateException if it is missing: the element map is damaged
     */
    byte[] take(BytesMap map, long id, long position) {
        ListLayout.putElementKey(keyBytes, 0, id, position);
        long n;
        while ((n = map.take(key, taken, 0)) > taken.byteSize()) {
            taken = MemorySegment.ofArray(new byte[(int) Math.max(n, taken.byteSize() * 2)]);
        }
        if (n < 0) {
            throw missing(id, position);
        }
        byte[] v = taken.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
        if (taken.byteSize() > KEPT_BYTES) {
            taken = MemorySegment.ofArray(new byte[64]); // no thread keeps a large element's buffer
        }
        return v;
    }

    /** The largest buffer {@link #take(BytesMap, long, long)} keeps between calls. */
    private static final int KEPT_BYTES = 64 << 10;

    private static IllegalStateException missing(long id, long position) {
        return new IllegalStateException("list element position=" + position + " of id=" + Long.toHexString(id)
                + " is missing: the element map is damaged");
    }
}
