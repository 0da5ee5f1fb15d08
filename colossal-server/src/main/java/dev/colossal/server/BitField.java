package dev.colossal.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.locks.Lock;

/**
 * BITFIELD and BITFIELD_RO: GET, SET and INCRBY of signed (i1..i64) and unsigned (u1..u63)
 * integers at any bit offset of a string ({@code #N} counts in the field's width), with
 * OVERFLOW WRAP|SAT|FAIL applying to the operations after it. As in Redis 7.0 every argument is
 * read before anything runs, so a bad one anywhere answers its error alone; then the string is
 * grown (created if missing) to the farthest bit any SET or INCRBY reaches, even when an
 * OVERFLOW FAIL then writes nothing.
 */
final class BitField {

    private static final String BAD_TYPE =
            "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";
    private static final String BAD_OFFSET = "ERR bit offset is not an integer or out of range";

    /** The operations on a field. */
    private enum Kind { GET, SET, INCRBY }

    /** What SET and INCRBY do with a result outside the field: keep its low bits, clamp it, or not write. */
    private enum Overflow { WRAP, SAT, FAIL }

    /** One operation as read from the arguments; {@code value} is SET's value or INCRBY's increment. */
    private record Op(Kind kind, boolean signed, int bits, long offset, long value, Overflow overflow) {}

    private final ServerContext ctx;

    BitField(ServerContext ctx) {
        this.ctx = ctx;
    }

    /** @param readOnlyCommand BITFIELD_RO, which refuses SET and INCRBY after reading them */
    void run(Client c, byte[][] a, Reply r, boolean readOnlyCommand) {
        List<Op> ops = parse(a, r);
        if (ops == null) {
            return;
        }
        long highest = -1; // the farthest bit a write reaches
        for (Op op : ops) {
            if (op.kind != Kind.GET) {
                highest = Math.max(highest, op.offset + op.bits - 1);
            }
        }
        KeyValueStore store = ctx.db(c);
        if (highest < 0) {
            KeyValueStore.Entry e = StringCommands.rawString(store, a[1]);
            if (e != null && e.chunked()) {
                applyToChunks(BigString.of(store, a[1], e), ops, -1, r);
            } else {
                apply(ops, e == null ? new byte[0] : e.value(), r);
            }
            return;
        }
        if (readOnlyCommand) {
            r.error("ERR BITFIELD_RO only supports the GET subcommand");
            return;
        }
        Lock l = store.lock(a[1]);
        l.lock();
        try {
            KeyValueStore.Entry e = StringCommands.rawString(store, a[1]);
            boolean wrote;
            boolean changed;
            if (e != null && e.chunked()) {
                BigString big = BigString.of(store, a[1], e);
                long length = big.length();
                long lo = Long.MAX_VALUE;
                for (Op op : ops) {
                    lo = Math.min(lo, op.offset >>> 3);
                }
                // the bytes the operations reach, as far as the string went: applyToChunks reads as much
                int reach = (int) Math.max(0, Math.min(length, (highest >>> 3) + 1) - lo);
                byte[] before = reach == 0 ? new byte[0] : big.read(lo, reach);
                wrote = applyToChunks(big, ops, highest, r);
                changed = big.length() != length || reach > 0 && !Arrays.equals(before, big.read(lo, reach));
            } else {
                byte[] old = e == null ? new byte[0] : e.value();
                byte[] v = Arrays.copyOf(old, (int) Math.max(old.length, (highest >>> 3) + 1));
                wrote = apply(ops, v, r);
                if (wrote || e == null || v.length != old.length) {
                    BigString.set(store, a[1], v, e == null ? StoredValue.NO_EXPIRY : e.expireAtMillis());
                }
                changed = e == null || !Arrays.equals(old, v);
            }
            if (!changed) {
                ctx.unchangedWrites.increment(); // as Redis, a write of bits as they were is no change
            }
            if (wrote) { // as Redis: a string only grown (every write failed) publishes nothing
                ctx.events.fire(KeyspaceEvents.STRING, "setbit", store, a[1]);
            }
        } finally {
            l.unlock();
        }
    }

    /** @return the operations, or null after answering the first bad argument's error */
    private List<Op> parse(byte[][] a, Reply r) {
        List<Op> ops = new ArrayList<>();
        Overflow overflow = Overflow.WRAP;
        for (int j = 2; j < a.length; j++) {
            int left = a.length - j - 1;
            Kind kind;
            if (Args.is(a[j], "GET") && left >= 2) {
                kind = Kind.GET;
            } else if (Args.is(a[j], "SET") && left >= 3) {
                kind = Kind.SET;
            } else if (Args.is(a[j], "INCRBY") && left >= 3) {
                kind = Kind.INCRBY;
            } else if (Args.is(a[j], "OVERFLOW") && left >= 1) {
                byte[] o = a[++j];
                overflow = Args.is(o, "WRAP") ? Overflow.WRAP : Args.is(o, "SAT") ? Overflow.SAT
                        : Args.is(o, "FAIL") ? Overflow.FAIL : null;
                if (overflow == null) {
                    r.error("ERR Invalid OVERFLOW type specified");
                    return null;
                }
                continue;
            } else {
                r.error(Errors.SYNTAX);
                return null;
            }
            byte[] type = a[j + 1];
            boolean signed = type.length > 0 && type[0] == 'i';
            OptionalLong width = type.length > 0 && (signed || type[0] == 'u')
                    ? Args.toLong(Arrays.copyOfRange(type, 1, type.length)) : OptionalLong.empty();
            if (width.isEmpty() || width.getAsLong() < 1 || width.getAsLong() > (signed ? 64 : 63)) {
                r.error(BAD_TYPE);
                return null;
            }
            int bits = (int) width.getAsLong();
            long offset = offset(a[j + 2], bits);
            if (offset < 0) {
                r.error(BAD_OFFSET);
                return null;
            }
            long value = 0;
            if (kind != Kind.GET) {
                OptionalLong v = Args.toLong(a[j + 3]);
                if (v.isEmpty()) {
                    r.error(Errors.NOT_INTEGER);
                    return null;
                }
                value = v.getAsLong();
            }
            ops.add(new Op(kind, signed, bits, offset, value, overflow));
            j += kind == Kind.GET ? 2 : 3;
        }
        return ops;
    }

    /**
     * @return the bit offset {@code arg} names, {@code #N} being N fields of {@code bits} (the
     *         product wraps on overflow, as Redis's 64-bit multiplication does), or -1 if invalid
     */
    private long offset(byte[] arg, int bits) {
        boolean fields = arg.length > 0 && arg[0] == '#';
        OptionalLong n = Args.toLong(fields ? Arrays.copyOfRange(arg, 1, arg.length) : arg);
        if (n.isEmpty()) {
            return -1;
        }
        long offset = fields ? n.getAsLong() * bits : n.getAsLong();
        return offset < 0 || (offset >>> 3) >= ctx.maxStringBytes() ? -1 : offset;
    }

    /**
     * Runs {@code ops} on a chunked string: on a window of the bytes they reach, read from the
     * chunks that hold it and written back to them, the string grown to {@code highest} as a plain
     * one would be.
     *
     * @param highest the farthest bit a write reaches, -1 if none does
     * @return whether any wrote
     */
    private static boolean applyToChunks(BigString big, List<Op> ops, long highest, Reply r) {
        long lo = Long.MAX_VALUE;
        long hi = 0;
        for (Op op : ops) {
            lo = Math.min(lo, op.offset >>> 3);
            hi = Math.max(hi, (op.offset + op.bits - 1) >>> 3);
        }
        long length = big.length();
        byte[] w = new byte[(int) (hi - lo + 1)];
        if (lo < length) {
            byte[] have = big.read(lo, (int) (Math.min(hi + 1, length) - lo));
            System.arraycopy(have, 0, w, 0, have.length);
        }
        List<Op> shifted = new ArrayList<>(ops.size());
        for (Op op : ops) {
            shifted.add(new Op(op.kind, op.signed, op.bits, op.offset - lo * 8, op.value, op.overflow));
        }
        boolean wrote = apply(shifted, w, r);
        long grown = highest < 0 ? length : Math.max(length, (highest >>> 3) + 1);
        if (highest >= 0 && (wrote || grown > length)) {
            big.write(lo, w, 0, (int) (Math.min(hi, grown - 1) - lo + 1));
        }
        return wrote;
    }

    /** Runs {@code ops} on {@code v} in order, answering one reply each. @return whether any wrote */
    private static boolean apply(List<Op> ops, byte[] v, Reply r) {
        r.array(ops.size());
        boolean wrote = false;
        for (Op op : ops) {
            long raw = read(v, op.offset, op.bits);
            long old = op.signed ? raw << (64 - op.bits) >> (64 - op.bits) : raw;
            if (op.kind == Kind.GET) {
                r.integer(old);
                continue;
            }
            long base = op.kind == Kind.SET ? op.value : old;
            long incr = op.kind == Kind.SET ? 0 : op.value;
            int overflow = op.signed ? signedOverflow(base, incr, op.bits) : unsignedOverflow(base, incr, op.bits);
            if (overflow != 0 && op.overflow == Overflow.FAIL) {
                r.nullBulk();
                continue;
            }
            long now = overflow == 0 || op.overflow == Overflow.WRAP ? base + incr // the low bits are the wrapped value
                    : overflow > 0 ? max(op.signed, op.bits) : op.signed ? -max(true, op.bits) - 1 : 0;
            write(v, op.offset, op.bits, now);
            wrote = true;
            long stored = op.signed ? now << (64 - op.bits) >> (64 - op.bits) : now & max(false, op.bits);
            r.integer(op.kind == Kind.SET ? old : stored);
        }
        return wrote;
    }

    private static long max(boolean signed, int bits) {
        return signed ? (bits == 64 ? Long.MAX_VALUE : (1L << (bits - 1)) - 1) : (1L << bits) - 1;
    }

    /**
     * @return 1 if {@code value + incr} is above the field's range, -1 if below, else 0; as Redis
     *         decides it, from the room left to each limit ({@code max - value}, {@code min - value})
     *         computed in 64 bits that wrap. Exact for INCRBY, whose value is in range; but a SET
     *         of a value within {@code max} of Long.MIN_VALUE leaves "negative room" above, so it
     *         counts as above (SAT stores the maximum), which redis-server 7.0 shows too.
     */
    private static int signedOverflow(long value, long incr, int bits) {
        long max = max(true, bits);
        long min = -max - 1;
        long roomUp = max - value;
        long roomDown = min - value;
        if (value > max || (bits != 64 && incr > roomUp) || (value >= 0 && incr > 0 && incr > roomUp)) {
            return 1;
        }
        if (value < min || (bits != 64 && incr < roomDown) || (value < 0 && incr < 0 && incr < roomDown)) {
            return -1;
        }
        return 0;
    }

    /**
     * As {@link #signedOverflow}, {@code value} read as unsigned 64 bits: Redis reads SET's value
     * that way, so a negative one is above any unsigned field (SAT stores the maximum).
     */
    private static int unsignedOverflow(long value, long incr, int bits) {
        long max = max(false, bits);
        if (Long.compareUnsigned(value, max) > 0 || (incr > 0 && incr > max - value)) {
            return 1;
        }
        return incr < 0 && incr < -value ? -1 : 0;
    }

    /** @return the {@code bits} bits from bit {@code offset}, as an unsigned number; zeros past the end */
    private static long read(byte[] v, long offset, int bits) {
        long x = 0;
        for (int i = 0; i < bits; i++) {
            long at = offset + i;
            long index = at >>> 3;
            int bit = index < v.length ? (v[(int) index] >> (7 - (int) (at & 7))) & 1 : 0;
            x = x << 1 | bit;
        }
        return x;
    }

    /** Writes the low {@code bits} bits of {@code x} from bit {@code offset}, which {@code v} holds. */
    private static void write(byte[] v, long offset, int bits, long x) {
        for (int i = 0; i < bits; i++) {
            long at = offset + i;
            int mask = 1 << (7 - (int) (at & 7));
            int index = (int) (at >>> 3);
            boolean one = ((x >>> (bits - 1 - i)) & 1) != 0;
            v[index] = (byte) (one ? v[index] | mask : v[index] & ~mask);
        }
    }
}
