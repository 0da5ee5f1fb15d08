package dev.colossal.server;

import dev.colossal.map.BytesMap;
import java.lang.foreign.MemorySegment;

/**
 * Answers a run of one list's elements as bulk replies, each copied by the map straight into the
 * reply buffer behind its header (as GET's value is): no key or value array per element, and one
 * copy of its bytes instead of two. Only lists stored one element per entry (by servers before big
 * lists' nodes, until their first change) are read so. One per thread ({@link #mine}), reused by every command the thread runs.
 */
final class ElementReads {

    private static final ThreadLocal<ElementReads> MINE = ThreadLocal.withInitial(ElementReads::new);

    private final byte[] keyBytes = new byte[ListLayout.ELEMENT_KEY_LENGTH];
    private final MemorySegment key = MemorySegment.ofArray(keyBytes);

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
            toReply(map, id, p, r);
        }
    }

    /** Appends the element at {@code position} of collection {@code id} to {@code r}. */
    private void toReply(BytesMap map, long id, long position, Reply r) {
        ListLayout.putElementKey(keyBytes, 0, id, position);
        long at = r.valueSlot(0);
        long n;
        while ((n = map.get(key, r.segment(), at)) > r.room(at)) {
            r.ensureSlot(at, n);
        }
        if (n < 0) {
            throw missing(id, position);
        }
        r.bulkAt(at, (int) n);
    }

    private static IllegalStateException missing(long id, long position) {
        return new IllegalStateException("list element position=" + position + " of id=" + Long.toHexString(id)
                + " is missing: the element map is damaged");
    }
}
