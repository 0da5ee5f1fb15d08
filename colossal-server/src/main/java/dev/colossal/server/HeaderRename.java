package dev.colossal.server;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * RENAME (and RENAMENX) of a key whose value keeps its elements in the element map: a list, a
 * stream, a bucketed hash or set, a sorted-set tree, a chunked string. Only the header moves, so
 * RENAME stays O(1) in elements; the collection keeps its id.
 *
 * <p>A kill between writing the destination's header and deleting the source's would leave two
 * keys whose headers name one collection: a write to one would change what the other reads. So
 * the collection's id is first noted in the database's in-flight entry, and {@link #finishAtOpen}
 * (when the database is opened, before any command) settles each id noted there: the rename is
 * finished if the destination's header was written, and undone otherwise. The writes, and what a
 * kill after each leaves:
 *
 * <pre>
 *  write                          a kill after it leaves                  open settles it to
 *  1 in-flight entry += id        source's header                         the old state
 *  2 root owners = [src, dst]     source's header, root names both        old: owners = [src]
 *  3 dst's header = src's         BOTH headers name id                    new: src deleted, owners = [dst]
 *  4 src's header deleted         destination's header, root names both   new: owners = [dst]
 *  5 root owners = [dst]          destination's header                    new
 *  6 in-flight entry -= id        destination's header                    (nothing noted)
 *
 *  In-flight entry (element map):
 *  key   = "renames" (7 bytes: neither a root key's 8 nor an element key's 16, so the collector passes it by)
 *  value = +----------------+----------------+-----
 *          | id (8, BE)     | id (8, BE)     | ...   one per RENAME in flight; the entry is removed when none is
 *          +----------------+----------------+-----
 * </pre>
 *
 * <p>The root names both keys from write 2 to write 5, so that the collector, which decides under
 * the owners' locks, frees nothing whichever header a kill left. One entry for all renames of a
 * database rather than one per id: open reads it with one get, with no walk of the element map.
 */
final class HeaderRename {

    static final byte[] IN_FLIGHT_KEY = "renames".getBytes(StandardCharsets.US_ASCII);
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private HeaderRename() {}

    /**
     * Moves the header of collection {@code id} from {@code from} to {@code to}, replacing what
     * {@code to} held. Callers hold both keys' locks.
     *
     * @param writeHeader writes the header under {@code to}, with the source's expiry
     */
    static void run(KeyValueStore store, ListElements elements, long id, byte[] from, byte[] to, Runnable writeHeader) {
        elements.renameBegins(id);
        elements.wrote();
        elements.setOwners(id, from, to);
        elements.wrote();
        writeHeader.run();
        elements.wrote();
        store.delete(from);
        elements.wrote();
        elements.setOwners(id, to);
        elements.wrote();
        elements.renameEnds(id);
        elements.wrote();
    }

    /**
     * Settles every rename of {@code store} a kill stopped: as the table above. Runs when the
     * database is opened, before any client can read either key.
     *
     * @return the renames settled
     */
    static int finishAtOpen(KeyValueStore store, ListElements elements) {
        long[] ids = elements.renamesInFlight();
        for (long id : ids) {
            byte[][] owners = elements.owners(id);
            if (owners != null && owners.length == 2) {
                if (holds(store, owners[1], id)) {
                    if (holds(store, owners[0], id)) {
                        store.delete(owners[0]);
                    }
                    elements.setOwners(id, owners[1]);
                } else {
                    elements.setOwners(id, owners[0]);
                }
            }
            elements.renameEnds(id);
        }
        return ids.length;
    }

    private static boolean holds(KeyValueStore store, byte[] key, long id) {
        KeyValueStore.Entry h = store.raw(key);
        return h != null && ListCollector.held(h, id) != null;
    }

    /** @return the ids the in-flight entry {@code value} (or null for none) notes */
    static long[] ids(byte[] value) {
        long[] ids = new long[value == null ? 0 : value.length / Long.BYTES];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = (long) LONG_BE.get(value, i * Long.BYTES);
        }
        return ids;
    }

    /** @return the in-flight entry {@code value} (or null) with {@code id} added */
    static byte[] with(byte[] value, long id) {
        int n = value == null ? 0 : value.length;
        byte[] v = value == null ? new byte[Long.BYTES] : java.util.Arrays.copyOf(value, n + Long.BYTES);
        LONG_BE.set(v, n, id);
        return v;
    }

    /** @return the in-flight entry {@code value} (or null) with one {@code id} removed; null if none is left */
    static byte[] without(byte[] value, long id) {
        long[] ids = ids(value);
        byte[] v = new byte[Math.max(0, ids.length - 1) * Long.BYTES];
        int at = 0;
        boolean dropped = false;
        for (long i : ids) {
            if (i == id && !dropped) {
                dropped = true;
            } else if (at < v.length) {
                LONG_BE.set(v, at, i);
                at += Long.BYTES;
            }
        }
        return !dropped ? value : v.length == 0 ? null : v;
    }
}
