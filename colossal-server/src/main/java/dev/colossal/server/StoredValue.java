package dev.colossal.server;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Layout of a value as the server stores it in the map: a one-byte header, an optional expiry,
 * then the user's bytes. The expiry travels inside the value (the server's format predates the
 * map's own TTLs) and survives restarts with it.
 *
 * <pre>
 *  0        1                          9
 *  +--------+--------------------------+----------------------------+
 *  | flags  | expireAtMillis (LE, opt) | payload (the user's bytes) |
 *  +--------+--------------------------+----------------------------+
 *  flags bit 0 = HAS_EXPIRY: the 8-byte Unix-epoch millisecond deadline is present.
 *  Without it the payload starts at offset 1.
 *  flags bits 1-3 = the type: 0 STRING (the user's bytes), 1 HASH ({@link HashLayout}), 2 LIST,
 *  3 SET, 4 ZSET, 5 STREAM ({@link StreamLayout}); 6-7 are reserved.
 *  flags bit 4 = CHUNKED, on a string only: the payload is a {@link BigStringLayout} header, the
 *  bytes are in the element map. Bits 5-7 are reserved and must be 0.
 * </pre>
 *
 * <p>A value's type is in the byte every read looks at for the deadline anyway, so telling a hash
 * from a string costs GET no extra read; a string's flags are 0 or 1, as before there were types,
 * and a hash's type field is the bit 1 it was when hashes were the only other type.
 */
final class StoredValue {

    static final int FLAGS_OFFSET = 0;
    static final int EXPIRY_OFFSET = FLAGS_OFFSET + Byte.BYTES;
    static final int PLAIN_HEADER = EXPIRY_OFFSET;
    static final int EXPIRING_HEADER = EXPIRY_OFFSET + Long.BYTES;
    static final byte HAS_EXPIRY = 1;
    /** The flag bits that hold the type. */
    static final byte TYPE_MASK = 0x0E;
    /** A string: type field 0. */
    static final byte STRING = 0;
    /** The type field of a hash. */
    static final byte HASH = 2;
    /** The type field of a list. */
    static final byte LIST = 4;
    /** The type field of a set. */
    static final byte SET = 6;
    /** The type field of a sorted set. */
    static final byte ZSET = 8;
    /** The type field of a stream. */
    static final byte STREAM = 10;
    /** The flag of a string kept in chunks ({@link BigStringLayout}); its type field stays {@link #STRING}. */
    static final byte CHUNKED = 0x10;
    /** Redis's names of the types, by type field / 2: what TYPE answers and SCAN TYPE takes. */
    private static final String[] TYPE_NAMES = {"string", "hash", "list", "set", "zset", "stream"};
    /** The longest entry value {@code BytesMap} stores: 1 GiB (its {@code EntryLayout.MAX_LENGTH}). */
    static final long MAP_MAX_VALUE = 1L << 30;
    /**
     * The longest string the server stores: what fits the map with a deadline in front, so that
     * any value can be given a TTL (EXPIRE on a longer one could not be stored).
     */
    static final long MAX_PAYLOAD = MAP_MAX_VALUE - EXPIRING_HEADER;

    /** No deadline. */
    static final long NO_EXPIRY = 0;

    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE_UNALIGNED =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private StoredValue() {}

    /**
     * @param payload        the user's bytes
     * @param expireAtMillis the deadline, or {@link #NO_EXPIRY}
     * @return the stored form
     */
    static byte[] encode(byte[] payload, long expireAtMillis) {
        return encode(payload, 0, payload.length, expireAtMillis, STRING);
    }

    static byte[] encode(byte[] payload, int from, int length, long expireAtMillis, byte type) {
        byte[] out = new byte[headerLength(expireAtMillis) + length];
        encodeInto(out, payload, from, length, expireAtMillis, type);
        return out;
    }

    /**
     * Writes the stored form at the start of {@code out}, which must hold
     * {@code headerLength(expireAtMillis) + length} bytes.
     *
     * @param type the type field: {@link #STRING}, {@link #HASH}, ...
     * @return the stored form's length
     */
    static int encodeInto(byte[] out, byte[] payload, int from, int length, long expireAtMillis, byte type) {
        int header = headerLength(expireAtMillis);
        if (expireAtMillis != NO_EXPIRY) {
            out[FLAGS_OFFSET] = (byte) (HAS_EXPIRY | type);
            LONG_LE.set(out, EXPIRY_OFFSET, expireAtMillis);
        } else {
            out[FLAGS_OFFSET] = type;
        }
        System.arraycopy(payload, from, out, header, length);
        return header + length;
    }

    /**
     * Turns the {@link #headerLength} bytes before {@code payloadAt} into the header of a value of
     * {@code type} with that deadline, so that {@code buf[result, payloadAt + length)} is its stored form with no copy.
     *
     * @return where the stored form starts
     */
    static long headerBefore(MemorySegment buf, long payloadAt, long expireAtMillis, byte type) {
        long at = payloadAt - headerLength(expireAtMillis);
        if (expireAtMillis != NO_EXPIRY) {
            buf.set(ValueLayout.JAVA_BYTE, at + FLAGS_OFFSET, (byte) (HAS_EXPIRY | type));
            buf.set(LONG_LE_UNALIGNED, at + EXPIRY_OFFSET, expireAtMillis);
        } else {
            buf.set(ValueLayout.JAVA_BYTE, at + FLAGS_OFFSET, type);
        }
        return at;
    }

    /**
     * @param payloadLength a value's length
     * @throws ReplyException Redis's {@code string exceeds maximum allowed size} if it is longer than {@link #MAX_PAYLOAD}
     */
    static void checkLength(long payloadLength) {
        if (payloadLength > MAX_PAYLOAD) {
            throw new ReplyException(Errors.TOO_BIG);
        }
    }

    static int headerLength(long expireAtMillis) {
        return expireAtMillis == NO_EXPIRY ? PLAIN_HEADER : EXPIRING_HEADER;
    }

    /**
     * @param stored a stored value
     * @return its deadline, or {@link #NO_EXPIRY}
     * @throws ReplyException WRONGTYPE if the bytes are not a stored value
     */
    static long expireAt(byte[] stored) {
        check(stored);
        return (stored[FLAGS_OFFSET] & HAS_EXPIRY) != 0 ? (long) LONG_LE.get(stored, EXPIRY_OFFSET) : NO_EXPIRY;
    }

    /** @return the type field ({@link #STRING}, {@link #HASH}, ...) of a stored value checked by {@link #expireAt(byte[])} */
    static byte type(byte[] stored) {
        return type(stored[FLAGS_OFFSET]);
    }

    /** @return the type field of a stored value with these flags */
    static byte type(byte flags) {
        return (byte) (flags & TYPE_MASK);
    }

    /** @return whether a value of this type keeps parts in the element map, which its removal leaves to {@link ListCollector} */
    static boolean hasElements(byte type) {
        return type == LIST || type == STREAM;
    }

    /** @return whether the removal of {@code stored}, a value checked by {@link #expireAt(byte[])}, leaves elements to {@link ListCollector} */
    static boolean leavesElements(byte[] stored) {
        byte type = type(stored);
        return hasElements(type) || isChunked(stored[FLAGS_OFFSET]) || HashBuckets.isBucketed(stored)
                || type == ZSET && ZSetTreeLayout.isTree(stored);
    }

    /** @return whether a stored value with these flags is a string */
    static boolean isString(byte flags) {
        return (flags & TYPE_MASK) == STRING;
    }

    /** @return Redis's name of a type field: {@code string}, {@code hash}, {@code list}, {@code set}, {@code zset} or {@code stream} */
    static String typeName(byte type) {
        return TYPE_NAMES[type >> 1];
    }

    /** @return the type field Redis's name stands for (any case), or -1 for a name of no type this server holds */
    static int typeNamed(byte[] name) {
        for (int i = 0; i < TYPE_NAMES.length; i++) {
            if (Args.is(name, TYPE_NAMES[i].toUpperCase(java.util.Locale.ROOT))) {
                return i << 1;
            }
        }
        return -1;
    }

    /** @return whether {@code flags} are a stored value's: no reserved bit, a type this server knows */
    private static boolean known(byte flags) {
        if ((flags & CHUNKED) != 0) {
            return (flags & ~(HAS_EXPIRY | CHUNKED)) == 0;
        }
        return (flags & ~(HAS_EXPIRY | TYPE_MASK)) == 0 && (flags & TYPE_MASK) <= STREAM;
    }

    /** @return whether a stored value with these flags is a chunked string's header */
    static boolean isChunked(byte flags) {
        return (flags & CHUNKED) != 0;
    }

    /** @return the flags byte of the stored value at {@code at}, checked by {@link #expireAt(MemorySegment, long, long)} */
    static byte flags(MemorySegment stored, long at) {
        return stored.get(ValueLayout.JAVA_BYTE, at + FLAGS_OFFSET);
    }

    /** @return where the payload starts in a stored value with these {@link #flags} */
    static int payloadOffset(byte flags) {
        return (flags & HAS_EXPIRY) != 0 ? EXPIRING_HEADER : PLAIN_HEADER;
    }

    static int payloadOffset(byte[] stored) {
        return (stored[FLAGS_OFFSET] & HAS_EXPIRY) != 0 ? EXPIRING_HEADER : PLAIN_HEADER;
    }

    static byte[] payload(byte[] stored) {
        check(stored);
        return Arrays.copyOfRange(stored, payloadOffset(stored), stored.length);
    }

    /**
     * @param stored holds a stored value at {@code at}
     * @param at     where it starts
     * @param length its length
     * @return its deadline, or {@link #NO_EXPIRY}
     * @throws ReplyException WRONGTYPE if the bytes are not a stored value
     */
    static long expireAt(MemorySegment stored, long at, long length) {
        byte flags = length > 0 ? stored.get(ValueLayout.JAVA_BYTE, at + FLAGS_OFFSET) : -1;
        if (length < PLAIN_HEADER || !known(flags) || ((flags & HAS_EXPIRY) != 0 && length < EXPIRING_HEADER)) {
            throw notStored(length, flags);
        }
        return (flags & HAS_EXPIRY) != 0 ? stored.get(LONG_LE_UNALIGNED, at + EXPIRY_OFFSET) : NO_EXPIRY;
    }

    /** @return the deadline of the stored value {@code v}, or {@link #NO_EXPIRY} also if it is not one (scans skip, not fail) */
    static long expireAtOrNone(MemorySegment v) {
        if (v.byteSize() >= EXPIRING_HEADER && (v.get(ValueLayout.JAVA_BYTE, FLAGS_OFFSET) & HAS_EXPIRY) != 0) {
            return v.get(LONG_LE_UNALIGNED, EXPIRY_OFFSET);
        }
        return NO_EXPIRY;
    }

    /** @return where the payload starts, relative to {@code at}, in a stored value checked by {@link #expireAt(MemorySegment, long, long)} */
    static int payloadOffset(MemorySegment stored, long at) {
        return (stored.get(ValueLayout.JAVA_BYTE, at + FLAGS_OFFSET) & HAS_EXPIRY) != 0 ? EXPIRING_HEADER : PLAIN_HEADER;
    }

    /**
     * Bytes that are not a value this server wrote (a program put them into the map file itself):
     * Redis's reply for a key holding a kind of value the command does not handle, with why.
     */
    private static ReplyException notStored(long length, byte flags) {
        return new ReplyException("WRONGTYPE Operation against a key holding the wrong kind of value: its stored bytes "
                + "(length=" + length + " flags=" + flags + ") are not in this server's format; was the map written by "
                + "another program?");
    }

    private static void check(byte[] stored) {
        if (stored.length < PLAIN_HEADER || !known(stored[FLAGS_OFFSET])
                || ((stored[FLAGS_OFFSET] & HAS_EXPIRY) != 0 && stored.length < EXPIRING_HEADER)) {
            throw notStored(stored.length, stored.length > 0 ? stored[FLAGS_OFFSET] : -1);
        }
    }
}
