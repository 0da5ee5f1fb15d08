package dev.colossal.server;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@link ZSetScanOrder}s ZSCAN steps of big sorted sets reuse, one per set (by collection id),
 * least recently used dropped first past a bound in bytes.
 *
 * <p>Why a step may use an order built before writes to the set: SCAN promises only the members
 * present for the whole scan, and a scan starts with cursor 0, whose step takes an order that is
 * current (building one if the kept one is not). An order is only ever replaced by one built later,
 * under the set's key's lock, so every later step of that scan finds an order built at or after its
 * start: one that holds every member present since. A member it holds that is gone since is
 * skipped by the step, which then looks each member up ({@link StoredZSet#scoreOf}) for its score
 * now; a member added since is not promised. So ZADD and ZREM between steps cost a scan nothing but
 * those look-ups, and only a new scan of a changed set reads it whole again.
 */
final class ZSetScanOrders {

    private final long maxBytes;
    private final LinkedHashMap<Long, ZSetScanOrder> byId = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;

    /** @param maxBytes the most the kept orders hold together; a larger order is built for its step and dropped */
    ZSetScanOrders(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /**
     * @return an order of {@code z} (under {@code key}, whose lock the caller holds) that a step of
     *     a scan may use: current for a scan's first step ({@code start}), else the kept one if it
     *     is of this set under this key
     */
    ZSetScanOrder forStep(byte[] key, StoredZSet z, boolean start) {
        ZSetScanOrder kept;
        synchronized (this) {
            kept = byId.get(z.id());
        }
        if (kept != null && (kept.current(key, z) || (!start && Arrays.equals(kept.key, key)))) {
            return kept;
        }
        ZSetScanOrder built = ZSetScanOrder.of(key, z);
        synchronized (this) {
            ZSetScanOrder old = byId.remove(z.id());
            if (old != null) {
                bytes -= old.bytes();
            }
            if (built.bytes() <= maxBytes) {
                byId.put(z.id(), built);
                bytes += built.bytes();
                Iterator<Map.Entry<Long, ZSetScanOrder>> eldest = byId.entrySet().iterator();
                while (bytes > maxBytes) {
                    bytes -= eldest.next().getValue().bytes();
                    eldest.remove();
                }
            }
        }
        return built;
    }

    /** @return the bytes the kept orders hold */
    synchronized long bytes() {
        return bytes;
    }
}
