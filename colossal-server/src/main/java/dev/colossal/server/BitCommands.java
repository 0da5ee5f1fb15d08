package dev.colossal.server;

import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/**
 * The bit commands on strings: GETBIT, SETBIT, BITCOUNT and BITPOS (with BYTE|BIT), BITOP, and
 * BITFIELD/BITFIELD_RO ({@link BitField}), replies and error texts as Redis 7.0's. Spring Data
 * Redis's {@code opsForValue().setBit/getBit} and {@code bitCount} were unknown commands. Bit 0
 * is the most significant bit of the first byte, as in Redis.
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
        t.add("bitpos", -3, List.of("readonly"), 1, 1, 1, this::bitpos);
        t.add("bitop", -4, List.of("write", "denyoom"), 2, -1, 1, this::bitop);
        BitField field = new BitField(ctx);
        t.add("bitfield", -2, List.of("write", "denyoom"), 1, 1, 1, (c, a, r) -> field.run(c, a, r, false));
        t.add("bitfield_ro", -2, List.of("readonly", "fast"), 1, 1, 1, (c, a, r) -> field.run(c, a, r, true));
    }

    /** @return the bit offset, or -1 after answering Redis's error: negative, or a byte past the longest string */
    private long offset(byte[] arg, Reply r) {
        OptionalLong parsed = Args.toLong(arg);
        if (parsed.isEmpty() || parsed.getAsLong() < 0 || (parsed.getAsLong() >>> 3) >= ctx.maxStringBytes()) {
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
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = StringCommands.rawString(store, a[1]);
        if (e != null && e.chunked()) {
            r.integer((BigString.of(store, a[1], e).byteAt(offset >>> 3) >> (7 - (int) (offset & 7))) & 1);
            return;
        }
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
            KeyValueStore.Entry e = StringCommands.rawString(store, a[1]);
            int mask = 1 << (7 - (int) (offset & 7));
            long index = offset >>> 3;
            if (e != null && e.chunked()) {
                BigString big = BigString.of(store, a[1], e);
                boolean grows = index >= big.length();
                int was = big.setBit(offset, on.getAsLong() == 1);
                if (grows || was != on.getAsLong()) {
                    ctx.events.fire(KeyspaceEvents.STRING, "setbit", store, a[1]);
                } else {
                    ctx.unchangedWrites.increment();
                }
                r.integer(was);
                return;
            }
            byte[] v = e == null ? new byte[0] : e.value();
            int was = bit(v, offset);
            byte[] out = Arrays.copyOf(v, (int) Math.max(v.length, index + 1));
            out[(int) index] = (byte) (on.getAsLong() == 1 ? out[(int) index] | mask : out[(int) index] & ~mask);
            BigString.set(store, a[1], out, e == null ? StoredValue.NO_EXPIRY : e.expireAtMillis());
            if (e == null || out.length != v.length || was != on.getAsLong()) { // Redis's event: a change
                ctx.events.fire(KeyspaceEvents.STRING, "setbit", store, a[1]);
            } else {
                ctx.unchangedWrites.increment();
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
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = StringCommands.rawString(store, a[1]);
        if (e == null) {
            r.integer(0);
            return;
        }
        Bytes v = Bytes.of(store, a[1], e);
        if (a.length == 2) {
            r.integer(v.count(0, v.length() * 8L - 1));
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
        long start = from.getAsLong();
        long end = to.getAsLong();
        if (start < 0 && end < 0 && start > end) { // before the unit is read, as Redis 7.0 does
            r.integer(0);
            return;
        }
        boolean bits = a.length == 5 && Args.is(a[4], "BIT");
        if (a.length == 5 && !bits && !Args.is(a[4], "BYTE")) {
            r.error(Errors.SYNTAX);
            return;
        }
        long total = bits ? v.length() * 8L : v.length();
        start = Math.max(0, start < 0 ? total + start : start);
        end = Math.max(0, end < 0 ? total + end : end);
        end = Math.min(end, total - 1);
        if (start > end) {
            r.integer(0);
        } else {
            r.integer(bits ? v.count(start, end) : v.count(start * 8, end * 8 + 7));
        }
    }

    /**
     * BITPOS key bit [start [end [BYTE|BIT]]]: a missing key is all zeros, answered before the
     * range is read, as Redis does. Looking for a 0 past a range of ones finds the bit just after
     * the string when no end was given (the string continues with zeros), and -1 when one was.
     */
    private void bitpos(Client c, byte[][] a, Reply r) {
        OptionalLong wanted = Args.toLong(a[2]);
        if (wanted.isEmpty()) {
            r.error(Errors.NOT_INTEGER);
            return;
        }
        if ((wanted.getAsLong() & ~1L) != 0) {
            r.error("ERR The bit argument must be 1 or 0.");
            return;
        }
        int bit = (int) wanted.getAsLong();
        KeyValueStore store = ctx.db(c);
        KeyValueStore.Entry e = StringCommands.rawString(store, a[1]);
        if (e == null) {
            r.integer(bit == 1 ? -1 : 0);
            return;
        }
        Bytes v = Bytes.of(store, a[1], e);
        if (a.length > 6) {
            r.error(Errors.SYNTAX);
            return;
        }
        boolean bits = false;
        boolean endGiven = a.length >= 5;
        long total = v.length();
        long start = 0;
        long end = total - 1;
        if (a.length >= 4) {
            OptionalLong from = Args.toLong(a[3]);
            if (from.isEmpty()) {
                r.error(Errors.NOT_INTEGER);
                return;
            }
            if (a.length == 6) {
                bits = Args.is(a[5], "BIT");
                if (!bits && !Args.is(a[5], "BYTE")) {
                    r.error(Errors.SYNTAX);
                    return;
                }
            }
            OptionalLong to = endGiven ? Args.toLong(a[4]) : OptionalLong.of(-1);
            if (to.isEmpty()) {
                r.error(Errors.NOT_INTEGER);
                return;
            }
            total = bits ? total * 8 : total;
            start = Math.max(0, from.getAsLong() < 0 ? total + from.getAsLong() : from.getAsLong());
            end = Math.min(Math.max(0, to.getAsLong() < 0 ? total + to.getAsLong() : to.getAsLong()), total - 1);
        }
        if (start > end) {
            r.integer(-1);
            return;
        }
        long first = bits ? start : start * 8;
        long last = bits ? end : end * 8 + 7;
        long found = v.find(bit, first, last);
        if (found < 0 && bit == 0 && !endGiven) {
            found = last + 1;
        }
        r.integer(found);
    }

    /**
     * The bytes BITCOUNT and BITPOS look at: a plain string's array, or a chunked string
     * ({@link BigString}) read a window of chunks at a time, only over the range asked.
     */
    private record Bytes(byte[] plain, BigString big) {

        /** Bytes a window over a chunked string reads at once: memory stays bounded whatever the range. */
        private static final int WINDOW = 1 << 20;

        static Bytes of(KeyValueStore store, byte[] key, KeyValueStore.Entry e) {
            return e.chunked() ? new Bytes(null, BigString.of(store, key, e)) : new Bytes(e.value(), null);
        }

        long length() {
            return big == null ? plain.length : big.length();
        }

        /** @return the set bits from bit {@code first} to {@code last}, both included */
        long count(long first, long last) {
            if (big == null) {
                return BitCommands.count(plain, first, last);
            }
            long n = 0;
            for (long from = first; from <= last; ) {
                long base = from >>> 3;
                long to = Math.min(last, (base + WINDOW) * 8 - 1);
                byte[] w = big.read(base, (int) ((to >>> 3) - base + 1));
                n += BitCommands.count(w, from - base * 8, to - base * 8);
                from = to + 1;
            }
            return n;
        }

        /** @return the first bit from {@code first} to {@code last} (both included) that is {@code bit}, or -1 */
        long find(int bit, long first, long last) {
            if (big == null) {
                return BitCommands.find(plain, bit, first, last);
            }
            for (long from = first; from <= last; ) {
                long base = from >>> 3;
                long to = Math.min(last, (base + WINDOW) * 8 - 1);
                byte[] w = big.read(base, (int) ((to >>> 3) - base + 1));
                long found = BitCommands.find(w, bit, from - base * 8, to - base * 8);
                if (found >= 0) {
                    return found + base * 8;
                }
                from = to + 1;
            }
            return -1;
        }
    }

    /** @return the first bit from {@code first} to {@code last} (both included) that is {@code bit}, or -1 */
    private static long find(byte[] v, int bit, long first, long last) {
        long i = first;
        for (; i <= last && (i & 7) != 0; i++) {
            if (bit(v, i) == bit) {
                return i;
            }
        }
        int skip = bit == 1 ? 0 : 0xFF; // a byte with none of the bits sought
        for (; i + 7 <= last && (v[(int) (i >>> 3)] & 0xFF) == skip; i += 8) {
            // whole bytes without the bit
        }
        for (; i <= last; i++) {
            if (bit(v, i) == bit) {
                return i;
            }
        }
        return -1;
    }

    /**
     * BITOP AND|OR|XOR|NOT destkey key...: missing sources are empty strings, shorter ones are
     * padded with zeros, and an empty result deletes the destination. The destination is written
     * as SET writes it: any type replaced, no TTL kept; the event is {@code set}, or {@code del}.
     */
    private void bitop(Client c, byte[][] a, Reply r) {
        byte[] op = a[1];
        boolean not = Args.is(op, "NOT");
        if (!not && !Args.is(op, "AND") && !Args.is(op, "OR") && !Args.is(op, "XOR")) {
            r.error(Errors.SYNTAX);
            return;
        }
        if (not && a.length != 4) {
            r.error("ERR BITOP NOT must be called with a single source key.");
            return;
        }
        KeyValueStore store = ctx.db(c);
        Lock[] ls = store.locks(Arrays.copyOfRange(a, 2, a.length));
        StringCommands.lockAll(ls);
        try {
            byte[][] sources = new byte[a.length - 3][];
            int n = 0;
            for (int i = 0; i < sources.length; i++) {
                KeyValueStore.Entry e = StringCommands.string(store, a[i + 3]);
                sources[i] = e == null ? new byte[0] : e.value();
                n = Math.max(n, sources[i].length);
            }
            byte[] out = combine(op, sources, n);
            if (n == 0) {
                if (store.delete(a[2])) {
                    ctx.events.fire(KeyspaceEvents.GENERIC, "del", store, a[2]);
                }
            } else {
                store.set(a[2], out, StoredValue.NO_EXPIRY);
                ctx.events.fire(KeyspaceEvents.STRING, "set", store, a[2]);
            }
            r.integer(n);
        } finally {
            StringCommands.unlockAll(ls);
        }
    }

    /** @return {@code op} of {@code sources}, each read as {@code n} bytes with zeros past its end */
    private static byte[] combine(byte[] op, byte[][] sources, int n) {
        byte[] out = Arrays.copyOf(sources[0], n);
        if (Args.is(op, "NOT")) {
            for (int i = 0; i < n; i++) {
                out[i] = (byte) ~out[i];
            }
            return out;
        }
        boolean and = Args.is(op, "AND");
        boolean or = Args.is(op, "OR");
        for (int s = 1; s < sources.length; s++) {
            byte[] src = sources[s];
            for (int i = 0; i < n; i++) {
                int b = i < src.length ? src[i] : 0;
                out[i] = (byte) (and ? out[i] & b : or ? out[i] | b : out[i] ^ b);
            }
        }
        return out;
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
