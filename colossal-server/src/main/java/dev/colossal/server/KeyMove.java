package dev.colossal.server;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * MOVE of a key to another database, whole across a kill: the key ends in exactly one of the two
 * databases. A value whose elements live in the element map (a list, a stream, a bucketed hash or
 * set, a sorted-set tree) is copied under a new id of the destination's element map, then the
 * source is deleted; a plain value is one write in each map. Both are two databases' writes, so a
 * kill between the destination's header and the source's removal would leave the key in both,
 * each whole with its own elements. As {@link HeaderRename} does for RENAME, the move is first
 * noted in the source database's in-flight entry, and {@link #finishAtOpen} (when the server
 * opens its databases, before any command) settles each move noted there: finished if the
 * destination holds the key, undone otherwise. The destination held no live key when the move
 * began (MOVE answers 0 then), and no command runs on either before the settling, so a key there
 * is the move's. The writes, and what a kill after each leaves:
 *
 * <pre>
 *  write                              a kill after it leaves                   open settles it to
 *  1 source's in-flight entry += move  the key in the source                    the old state
 *  2 elements copied (new id, root     the key in the source; in the            old: the copy's root and
 *    first), one put each              destination a root no header holds       elements left to the collector
 *  3 destination's header (or value)  the key in BOTH                          new: the source's key deleted
 *  4 source's header deleted          the key in the destination               new
 *    (its elements, then its root)    and elements no header holds             (the collector frees them)
 *  5 source's in-flight entry -= move  the key in the destination              (nothing noted)
 *
 *  In-flight entry (the source's element map):
 *  key   = "moves" (5 bytes: neither a root key's 8 nor an element key's 16, so the collector passes it by)
 *  value = +---------------+---------------+-------------+-----
 *          | db (4, BE)    | key len (4,BE)| key (len)   | ...   one per MOVE in flight; removed when none is
 *          +---------------+---------------+-------------+-----
 * </pre>
 *
 * <p>A database of plain values alone gets its element map at its first MOVE, for the entry.
 * COPY needs none of this: its one write that counts is the destination's header, the last
 * (a kill before it leaves a root no header holds, which the collector frees). SWAPDB neither:
 * a database's map and element map move together, and a swap a kill cut short is finished or
 * undone from its file names ({@link DatabaseFiles}).
 */
final class KeyMove {

    static final byte[] IN_FLIGHT_KEY = "moves".getBytes(StandardCharsets.US_ASCII);
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final int FIXED = 2 * Integer.BYTES;

    private KeyMove() {}

    /**
     * Moves {@code key} from {@code from} to database {@code to}: write 1, {@code copy} (writes 2
     * and 3), {@code deleteSource} (write 4), write 5. Callers hold the key's lock, which is the
     * same in every database ({@link KeyLocks}).
     */
    static void run(KeyValueStore from, int to, byte[] key, Runnable copy, Runnable deleteSource) {
        ListElements notes = from.elements(true);
        byte[] move = move(to, key);
        notes.moveBegins(move);
        notes.wrote();
        copy.run();
        notes.wrote();
        deleteSource.run();
        notes.wrote();
        notes.moveEnds(move);
        notes.wrote();
    }

    /**
     * Settles every MOVE a kill stopped, as the table above: runs when the server has opened every
     * database's files, before any client can read the keys.
     *
     * @return the moves settled
     */
    static int finishAtOpen(Databases dbs) {
        int settled = 0;
        for (int db = 0; db < dbs.count(); db++) {
            MapStore from = dbs.opened(db);
            ListElements notes = from == null ? null : from.elements(false);
            if (notes == null) {
                continue;
            }
            for (byte[] move : notes.movesInFlight()) {
                int to = db(move);
                byte[] key = key(move);
                KeyValueStore dst = to >= 0 && to < dbs.count() ? dbs.opened(to) : null;
                if (dst != null && dst.raw(key) != null) {
                    from.delete(key);   // its elements go to the collector, whose first walk reads every root
                }
                notes.moveEnds(move);
                settled++;
            }
        }
        return settled;
    }

    /** @return the record of a move of {@code key} to database {@code to} */
    static byte[] move(int to, byte[] key) {
        byte[] m = new byte[FIXED + key.length];
        INT_BE.set(m, 0, to);
        INT_BE.set(m, Integer.BYTES, key.length);
        System.arraycopy(key, 0, m, FIXED, key.length);
        return m;
    }

    /** @return the destination database of the record {@code move} */
    static int db(byte[] move) {
        return (int) INT_BE.get(move, 0);
    }

    /** @return the key of the record {@code move} */
    static byte[] key(byte[] move) {
        return Arrays.copyOfRange(move, FIXED, move.length);
    }

    /** @return the records the in-flight entry {@code value} (or null for none) holds */
    static List<byte[]> moves(byte[] value) {
        List<byte[]> all = new ArrayList<>();
        int at = 0;
        while (value != null && at + FIXED <= value.length) {
            int end = at + FIXED + (int) INT_BE.get(value, at + Integer.BYTES);
            all.add(Arrays.copyOfRange(value, at, end));
            at = end;
        }
        return all;
    }

    /** @return the in-flight entry {@code value} (or null) with the record {@code move} added */
    static byte[] with(byte[] value, byte[] move) {
        int n = value == null ? 0 : value.length;
        byte[] v = value == null ? new byte[move.length] : Arrays.copyOf(value, n + move.length);
        System.arraycopy(move, 0, v, n, move.length);
        return v;
    }

    /** @return the in-flight entry {@code value} (or null) with one record {@code move} removed; null if none is left */
    static byte[] without(byte[] value, byte[] move) {
        List<byte[]> all = moves(value);
        for (int i = 0; i < all.size(); i++) {
            if (Arrays.equals(all.get(i), move)) {
                all.remove(i);
                break;
            }
        }
        if (all.isEmpty()) {
            return null;
        }
        byte[] v = null;
        for (byte[] m : all) {
            v = with(v, m);
        }
        return v;
    }
}
