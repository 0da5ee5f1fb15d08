package dev.colossal.server;

import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/**
 * The bit commands on strings: GETBIT, SETBIT, BITCOUNT (with BYTE|BIT), replies and error texts
 * as Redis 7.0's. Spring Data Redis's {@code opsForValue().setBit/getBit} and {@code bitCount}
 * were unknown commands. Bit 0 is the most significant bit of the first byte, as in Redis.
 */
final class BitCommands {

    private static final String BAD_OFFSET = "ERR bit offset is not an integer or out of range";
    private static final String BAD_BIT = "ERR bit is not an integer or out of range";

    private final ServerContext ctx;

    BitCommands(ServerContext ctx) {
        this.ctx = ctx;
    }

    void register(CommandTable t) {
        t.add("getbit", 3, List.of("readonly", "fast"), 1, 1, 1, this::getbit);
        t.add("setbit", 4, List.of("write", "denyoom"), 1, 1, 1, this::setbit);
        t.add("bitcount", -2, List.of("readonly"), 1, 1, 1, this::bitcount);
    }

    /** @return the bit offset, or -1 after answering Redis's error: negative, or a byte past the longest string */
    private long offset(byte[] arg, Reply r) {
        OptionalLong parsed = Args.toLong(arg);
        if (parsed.isEmpty() || parsed.getAsLong() < 0 || (parsed.getAsLong() >>> 3) >= ctx.maxStringBytes) {
            r.error(BAD_OFFSET);
            return -1;
        }
        return parsed.getAsLong();
    }

    private static int bit(byte[] v, long offset) {
        long index = offset >>> 3;
        return index < v.length ? (v[(int) index] >> (7 - (int) (offset & 7))) & 1 : 0;
    }

    private void getbit(Client c, byte[][] a, Reply r) {
        long offset = offset(a[2], r);
        if (offset < 0) {
            return;
        }
        KeyValueStore.Entry e = StringCommands.string(ctx.db(c), a[1]);
        r.integer(e == null ? 0 : bit(e.value(), offset));
    }

    /** Grows the string with zero bytes to reach the bit, keeps its TTL, answers the bit it had. */
    private void setbit(Client c, byte[][] a, Reply r) {
        long offset = offset(a[2], r);
        if (offset < 0) {
            return;
        }
        OptionalLong on = Args.toLong(a[3]);
        if (on.isEmpty() || (on.getAsLong() & ~1L) != 0) {
            r.error(BAD_BIT);
            return;
        }
        KeyValueStore store = ctx.db(c);
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = StringCommands.string(store, a[1]);
            byte[] v = e == null ? new byte[0] : e.value();
            int was = bit(v, offset);
            int index = (int) (offset >>> 3);
            byte[] out = Arrays.copyOf(v, Math.max(v.length, index + 1));
            int mask = 1 << (7 - (int) (offset & 7));
            out[index] = (byte) (on.getAsLong() == 1 ? out[index] | mask : out[index] & ~mask);
            store.set(a[1], out, e == null ? StoredValue.NO_EXPIRY : e.expireAtMillis());
            if (e == null || out.length != v.length || was != on.getAsLong()) { // Redis's event: a change
                ctx.events.fire(KeyspaceEvents.STRING, "setbit", store, a[1]);
            }
            r.integer(was);
        } finally {
            l.unlock();
        }
    }

    /**
     * BITCOUNT key [start end [BYTE|BIT]]: a missing key answers 0 before the range is read, as in
     * Redis 7.0 (later versions check the arguments first); ranges count from the end when
     * negative and are clipped to the string.
     */
    private void bitcount(Client c, byte[][] a, Reply r) {
        KeyValueStore.Entry e = StringCommands.string(ctx.db(c), a[1]);
        if (e == null) {
            r.integer(0);
            return;
        }
        byte[] v = e.value();
        if (a.length == 2) {
            r.integer(count(v, 0, v.length * 8L - 1));
            return;
        }
        if (a.length != 4 && a.length != 5) {
            r.error(Errors.SYNTAX);
            return;
        }
        OptionalLong from = Args.toLong(a[2]);
        OptionalLong to = Args.toLong(a[3]);
        if (from.isEmpty() || to.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return;
        }
        boolean bits = a.length == 5 && Args.is(a[4], "BIT");
        if (a.length == 5 && !bits && !Args.is(a[4], "BYTE")) {
            r.error(Errors.SYNTAX);
            return;
        }
        long total = bits ? v.length * 8L : v.length;
        long start = from.getAsLong();
        long end = to.getAsLong();
        if (start < 0 && end < 0 && start > end) {
            r.integer(0);
            return;
        }
        start = Math.max(0, start < 0 ? total + start : start);
        end = Math.max(0, end < 0 ? total + end : end);
        end = Math.min(end, total - 1);
        if (start > end) {
            r.integer(0);
        } else {
            r.integer(bits ? count(v, start, end) : count(v, start * 8, end * 8 + 7));
        }
    }

    /** @return the set bits from bit {@code first} to bit {@code last}, both included */
    private static long count(byte[] v, long first, long last) {
        long n = 0;
        for (long i = first; i <= last && (i & 7) != 0; i++) {
            n += bit(v, i);
            first = i + 1;
        }
        long wholeEnd = (last + 1) & ~7L; // the bytes wholly inside
        for (long b = first >>> 3; b < wholeEnd >>> 3; b++) {
            n += Integer.bitCount(v[(int) b] & 0xFF);
        }
        for (long i = Math.max(first, wholeEnd); i <= last; i++) {
            n += bit(v, i);
        }
        return n;
    }
}
