package dev.colossal.rdb;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;

/**
 * The bytes of Redis's DUMP and RESTORE for a string, a hash, a set, a list, a sorted set or a stream: one value as an RDB file holds it,
 * then the RDB version that wrote it and a CRC-64 ({@link Crc64}) of everything before the checksum.
 *
 * <pre>
 *  0      1                              n      n+2                n+10
 *  +------+------------------------------+------+------------------+
 *  | type | value                        | RDB  | CRC-64 of bytes  |
 *  |      |                              | ver. | 0..n+2, LE       |
 *  +------+------------------------------+------+------------------+
 *                                         2 bytes, little-endian
 *  type 0  string: one string (RdbInput's length and encodings)
 *  type 4  hash: a length n, then n (field, value) string pairs
 *  type 16 hash: one string holding a {@link Listpack} of field, value, field, value, ...
 *  (types 9 and 13, hashes of Redis before 7.0, are read: see {@link RdbHashes})
 *  type 2  set: a length n, then n member strings
 *  type 11 set: one string holding an intset ({@link RdbSets})
 *  type 20 set (Redis 7.2): one string holding a {@link Listpack} of the members
 *  type 5  zset: a length n, then n (member string, score as 8 bytes LE), highest score first
 *  type 17 zset: one string holding a {@link Listpack} of member, score text, member, ...
 *  (types 3 and 12, sorted sets of Redis before 7.0, are read: see {@link RdbZSets})
 *  type 19 stream: {@link RdbStreams}' nodes, counters and consumer groups (types 15 and 21 are read)
 * </pre>
 *
 * <p>Written as Redis 7.0 writes them (version 10), a decimal that fits 32 bits as an integer, byte
 * for byte, except that strings longer than 20 bytes are written plain where Redis may
 * LZF-compress them (a listpack longer than 20 bytes among them). A hash is written as Redis 7.0
 * writes it: type 16 for one it holds as a listpack, 4 for a hashtable; a set: an intset as type
 * 11, a hashtable as type 2; a sorted set: type 17 for a listpack, 5 for a skiplist; a list as
 * type 18 (a quicklist of listpacks); a stream as type 19. A hashtable's order is its own (Redis's
 * follows its random hash seed). Read from any RDB version up to {@link RdbReader#NEWEST_VERSION},
 * in every string encoding; a value of another type (a module's, a function library) is refused.
 */
public final class DumpPayload {

    /** The RDB version written: Redis 7.0's, the version the server reports. */
    public static final int VERSION = 10;
    private static final int STRING = 0;
    private static final int HASH = RdbValues.HASH;
    private static final int HASH_LISTPACK = RdbValues.HASH_LISTPACK;
    private static final int FOOTER = Short.BYTES + Long.BYTES;
    /** What {@link #smallInteger} answers for a string not written as an integer: no 32-bit value. */
    private static final long NOT_SMALL = Long.MIN_VALUE;
    private static final ValueLayout.OfShort SHORT_LE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Why a payload was refused; the server words each as Redis does, or says what it cannot hold. */
    public enum Refusal {
        /** Too short, of a newer RDB version, or its checksum does not match. */
        VERSION_OR_CHECKSUM,
        /** Sound, but its value cannot be read. */
        BAD_FORMAT,
        /** A module's value: sound, but only the module that wrote it reads it. */
        UNSUPPORTED_TYPE
    }

    /**
     * What the {@code of...} methods write: DUMP's payload, or the same bytes without its footer, as
     * an RDB file holds a value after its key ({@link RdbFile#keyValue}): a snapshot drops the
     * footer, so computing its checksum per key was wasted.
     */
    public enum Form {
        /** Type, value, RDB version and CRC-64: DUMP's reply, RESTORE's argument. */
        DUMP(FOOTER),
        /** Type and value alone. */
        RDB(0);

        /** The bytes after the value. */
        final int footer;

        Form(int footer) {
            this.footer = footer;
        }
    }

    /**
     * A value a payload holds: a string, a hash, a set, a list or a sorted set; the others are null.
     *
     * @param string the string's bytes
     * @param hash   the hash's fields and values, alternately, in the payload's order
     * @param set    the set's members, distinct, in the payload's order
     * @param list   the list's elements, head first
     * @param zset   the sorted set
     * @param stream the stream (without consumer groups)
     */
    public record Value(byte[] string, List<byte[]> hash, List<byte[]> set, List<byte[]> list, RdbZSets.ZSet zset,
                        RdbStreams.Stream stream) {}

    /** A payload RESTORE cannot take, with {@link #refusal why}. */
    public static final class RefusedException extends Exception {

        private static final long serialVersionUID = 1L;
        private final Refusal refusal;

        RefusedException(Refusal refusal, String message) {
            super(message);
            this.refusal = refusal;
        }

        /** @return why */
        public Refusal refusal() {
            return refusal;
        }
    }

    private DumpPayload() {}

    /**
     * @param value a string's bytes
     * @param form   {@link Form#DUMP}'s payload, or {@link Form#RDB}'s value alone
     * @return its DUMP payload
     */
    public static byte[] of(MemorySegment value, Form form) {
        byte[] out = new byte[1 + stringSize(value) + form.footer];
        MemorySegment o = MemorySegment.ofArray(out);
        out[0] = STRING;
        seal(o, writeString(o, 1, value), form);
        return out;
    }

    /** @return how many bytes {@link #writeString} writes for {@code value} */
    static int stringSize(MemorySegment value) {
        long number = smallInteger(value);
        return number == NOT_SMALL ? lengthSize(value.byteSize()) + (int) value.byteSize() : 1 + integerWidth(number);
    }

    /** @return the bytes of a string's integer encoding after its mark: 1, 2 or 4 */
    private static int integerWidth(long number) {
        return number == (byte) number ? 1 : number == (short) number ? 2 : 4;
    }

    /** Writes {@code value} as an RDB string at {@code at}, as Redis does but uncompressed; @return the offset after it */
    static int writeString(MemorySegment o, int at, MemorySegment value) {
        long number = smallInteger(value);
        if (number == NOT_SMALL) {
            long n = value.byteSize();
            at = writeLength(o, at, n);
            MemorySegment.copy(value, 0, o, at, n);
            return at + (int) n;
        }
        int width = integerWidth(number);
        if (width == 1) {
            o.set(ValueLayout.JAVA_BYTE, at, (byte) 0xC0);
            o.set(ValueLayout.JAVA_BYTE, at + 1, (byte) number);
        } else if (width == 2) {
            o.set(ValueLayout.JAVA_BYTE, at, (byte) 0xC1);
            o.set(SHORT_LE, at + 1, (short) number);
        } else {
            o.set(ValueLayout.JAVA_BYTE, at, (byte) 0xC2);
            o.set(INT_LE, at + 1, (int) number);
        }
        return at + 1 + width;
    }

    /**
     * @param fieldsAndValues a hash's fields and values, alternately
     * @param form   {@link Form#DUMP}'s payload, or {@link Form#RDB}'s value alone
     * @return its DUMP payload, RDB type 4
     */
    public static byte[] ofHash(List<byte[]> fieldsAndValues, Form form) {
        long body = lengthSize(fieldsAndValues.size() / 2);
        for (byte[] b : fieldsAndValues) {
            body += lengthSize(b.length) + b.length;
        }
        byte[] out = new byte[Math.toIntExact(1 + body + form.footer)];
        MemorySegment o = MemorySegment.ofArray(out);
        out[0] = HASH;
        int at = writeLength(o, 1, fieldsAndValues.size() / 2);
        for (byte[] b : fieldsAndValues) {
            at = writeLength(o, at, b.length);
            System.arraycopy(b, 0, out, at, b.length);
            at += b.length;
        }
        seal(o, at, form);
        return out;
    }

    /**
     * @param elements a list's elements, head first
     * @param form   {@link Form#DUMP}'s payload, or {@link Form#RDB}'s value alone
     * @return its DUMP payload, RDB type 18: a quicklist of listpack nodes, as Redis 7.0 writes it
     */
    public static byte[] ofList(List<byte[]> elements, Form form) {
        List<byte[]> nodes = RdbLists.nodes(elements);
        long body = lengthSize(nodes.size());
        for (byte[] lp : nodes) {
            body += 1 + stringSize(MemorySegment.ofArray(lp));
        }
        byte[] out = new byte[Math.toIntExact(1 + body + form.footer)];
        MemorySegment o = MemorySegment.ofArray(out);
        out[0] = RdbLists.QUICKLIST_2;
        int at = writeLength(o, 1, nodes.size());
        for (byte[] lp : nodes) {
            at = writeLength(o, at, 2); // a packed node: a listpack
            at = writeString(o, at, MemorySegment.ofArray(lp));
        }
        seal(o, at, form);
        return out;
    }

    /**
     * @param payload a payload
     * @return the bytes of its value alone, without its type, version and checksum: Redis's
     *     {@code serializedlength} (DEBUG OBJECT)
     */
    public static long valueLength(byte[] payload) {
        return payload.length - 1L - FOOTER;
    }

    /**
     * @param elements a list's elements, head first
     * @return the listpacks of the quicklist nodes Redis 7.0 would hold them in, as {@link #ofList} writes them
     */
    public static List<byte[]> quicklistNodes(List<byte[]> elements) {
        return RdbLists.nodes(elements);
    }

    /**
     * @param members a set's members, which Redis holds as a hashtable
     * @param form   {@link Form#DUMP}'s payload, or {@link Form#RDB}'s value alone
     * @return its DUMP payload, RDB type 2
     */
    public static byte[] ofSet(List<byte[]> members, Form form) {
        long body = lengthSize(members.size());
        for (byte[] m : members) {
            body += stringSize(MemorySegment.ofArray(m));
        }
        byte[] out = new byte[Math.toIntExact(1 + body + form.footer)];
        MemorySegment o = MemorySegment.ofArray(out);
        out[0] = RdbSets.SET;
        int at = writeLength(o, 1, members.size());
        for (byte[] m : members) {
            at = writeString(o, at, MemorySegment.ofArray(m));
        }
        seal(o, at, form);
        return out;
    }

    /**
     * @param membersAndScores a sorted set's members and scores' texts (as Redis's listpack holds
     *                         them), alternately, from the lowest
     * @param form   {@link Form#DUMP}'s payload, or {@link Form#RDB}'s value alone
     * @return its DUMP payload, RDB type 17, as Redis 7.0 dumps a sorted set it holds as a listpack
     */
    public static byte[] ofZSetListpack(List<byte[]> membersAndScores, Form form) {
        return ofListpack(RdbZSets.ZSET_LISTPACK, membersAndScores, form);
    }

    /**
     * @param fieldsAndValues a hash's fields and values, alternately, in the order Redis's listpack holds them
     * @param form   {@link Form#DUMP}'s payload, or {@link Form#RDB}'s value alone
     * @return its DUMP payload, RDB type 16, as Redis 7.0 dumps a hash it holds as a listpack
     */
    public static byte[] ofHashListpack(List<byte[]> fieldsAndValues, Form form) {
        return ofListpack(HASH_LISTPACK, fieldsAndValues, form);
    }

    /** @return the payload ({@code form}) of RDB type {@code type} whose value is one string, a listpack of {@code entries} */
    private static byte[] ofListpack(int type, List<byte[]> entries, Form form) {
        byte[] lp = ListpackWriter.encode(entries);
        byte[] out = new byte[1 + lengthSize(lp.length) + lp.length + form.footer];
        MemorySegment o = MemorySegment.ofArray(out);
        out[0] = (byte) type;
        int at = writeLength(o, 1, lp.length);
        System.arraycopy(lp, 0, out, at, lp.length);
        seal(o, at + lp.length, form);
        return out;
    }

    /**
     * @param members a sorted set's members, from the lowest
     * @param scores  their scores
     * @param form   {@link Form#DUMP}'s payload, or {@link Form#RDB}'s value alone
     * @return its DUMP payload, RDB type 5, highest first, as Redis 7.0 dumps a skiplist
     */
    public static byte[] ofZSet(List<byte[]> members, double[] scores, Form form) {
        long body = lengthSize(members.size());
        for (byte[] m : members) {
            body += stringSize(MemorySegment.ofArray(m)) + Double.BYTES;
        }
        byte[] out = new byte[Math.toIntExact(1 + body + form.footer)];
        MemorySegment o = MemorySegment.ofArray(out);
        out[0] = RdbZSets.ZSET_2;
        int at = writeLength(o, 1, members.size());
        for (int i = members.size() - 1; i >= 0; i--) {
            at = writeString(o, at, MemorySegment.ofArray(members.get(i)));
            o.set(LONG_LE, at, Double.doubleToRawLongBits(scores[i]));
            at += Double.BYTES;
        }
        seal(o, at, form);
        return out;
    }

    /**
     * @param ascending the members of a set Redis holds as an intset, ascending
     * @param form   {@link Form#DUMP}'s payload, or {@link Form#RDB}'s value alone
     * @return its DUMP payload, RDB type 11
     */
    public static byte[] ofIntset(long[] ascending, Form form) {
        MemorySegment intset = MemorySegment.ofArray(RdbSets.intset(ascending));
        byte[] out = new byte[1 + stringSize(intset) + form.footer];
        MemorySegment o = MemorySegment.ofArray(out);
        out[0] = RdbSets.SET_INTSET;
        seal(o, writeString(o, 1, intset), form);
        return out;
    }

    /** Ends a payload of {@code form} at {@code at}: DUMP's with the version and the checksum of the bytes before them. */
    private static void seal(MemorySegment o, int at, Form form) {
        if (form == Form.RDB) {
            return;
        }
        o.set(SHORT_LE, at, (short) VERSION);
        o.set(LONG_LE, at + 2, Crc64.update(0, o, 0, at + 2));
    }

    /**
     * @param payload what DUMP gave
     * @return the string, hash, set or sorted set it holds
     * @throws RefusedException if it is not a sound payload of one
     */
    public static Value valueOf(byte[] payload) throws RefusedException {
        MemorySegment p = MemorySegment.ofArray(payload);
        long end = p.byteSize() - FOOTER;
        if (end < 1) {
            throw new RefusedException(Refusal.VERSION_OR_CHECKSUM, "a payload of " + payload.length + " bytes is too short");
        }
        int version = Short.toUnsignedInt(p.get(SHORT_LE, end));
        if (version > RdbReader.NEWEST_VERSION) {
            throw new RefusedException(Refusal.VERSION_OR_CHECKSUM, "RDB version " + version + " is newer than "
                    + RdbReader.NEWEST_VERSION);
        }
        if (p.get(LONG_LE, end + 2) != Crc64.update(0, p, 0, end + 2)) {
            throw new RefusedException(Refusal.VERSION_OR_CHECKSUM, "the checksum does not match");
        }
        int type = Byte.toUnsignedInt(payload[0]);
        if (type != STRING && !RdbHashes.isHash(type) && type != RdbSets.SET && type != RdbSets.SET_INTSET
                && type != RdbSets.SET_LISTPACK && !RdbLists.isList(type) && !RdbZSets.isZSet(type)
                && !RdbStreams.isStream(type)) {
            String name = RdbValues.name(type);
            throw new RefusedException(name == null ? Refusal.BAD_FORMAT : Refusal.UNSUPPORTED_TYPE, name == null
                    ? "type " + type + " is no Redis type"
                    : "it holds a " + name + " (RDB type " + type + "), which only the module that wrote it reads");
        }
        RdbInput in = new RdbInput(p.asSlice(1, end - 1));
        try {
            return switch (type) {
                case STRING -> new Value(in.string(), null, null, null, null, null);
                case RdbSets.SET -> new Value(null, null, RdbSets.members(in), null, null, null);
                case RdbSets.SET_INTSET -> new Value(null, null, RdbSets.intsetMembers(in), null, null, null);
                case RdbSets.SET_LISTPACK -> new Value(null, null, RdbSets.listpackMembers(in), null, null, null);
                default -> RdbHashes.isHash(type) ? new Value(null, RdbHashes.read(in, type), null, null, null, null)
                        : RdbLists.isList(type) ? new Value(null, null, null, RdbLists.elements(in, type), null, null)
                        : RdbStreams.isStream(type) ? stream(in, type)
                        : new Value(null, null, null, null, RdbZSets.read(in, type), null);
            };
        } catch (RdbFormatException e) {
            throw new RefusedException(Refusal.BAD_FORMAT, e.getMessage());
        }
    }

    /** @return the stream at {@code in}, with its consumer groups */
    private static Value stream(RdbInput in, int type) throws RdbFormatException {
        return new Value(null, null, null, null, null, RdbStreams.read(in, type));
    }

    /**
     * @param s              a stream, with its consumer groups
     * @param nodeMaxEntries entries a node takes at most, as stream-node-max-entries
     * @param form   {@link Form#DUMP}'s payload, or {@link Form#RDB}'s value alone
     * @return its DUMP payload, RDB type 19, as Redis 7.0 writes it
     */
    public static byte[] ofStream(RdbStreams.Stream s, int nodeMaxEntries, Form form) {
        List<RdbStreams.Node> nodes = new java.util.ArrayList<>();
        int per = Math.max(1, nodeMaxEntries);
        for (int i = 0; i < s.entries().size(); i += per) {
            List<RdbStreams.Entry> node = s.entries().subList(i, Math.min(s.entries().size(), i + per));
            nodes.add(new RdbStreams.Node(node, new boolean[node.size()]));
        }
        return ofStream(s, nodes, form);
    }

    /**
     * @param s     a stream, with its consumer groups (its entries are not read)
     * @param stored its nodes as the server holds them, deleted entries and all
     * @param form   {@link Form#DUMP}'s payload, or {@link Form#RDB}'s value alone
     * @return its DUMP payload, RDB type 19, as Redis 7.0 writes it: node for node
     */
    public static byte[] ofStream(RdbStreams.Stream s, List<RdbStreams.Node> stored, Form form) {
        List<byte[]> keys = new java.util.ArrayList<>();
        List<byte[]> nodes = new java.util.ArrayList<>();
        for (RdbStreams.Node node : stored) {
            keys.add(RdbStreams.masterKey(node.entries().getFirst()));
            nodes.add(RdbStreams.listpack(node));
        }
        long[] counters = {s.entries().size(), s.lastMs(), s.lastSeq(), s.firstMs(), s.firstSeq(), s.maxDeletedMs(),
                s.maxDeletedSeq(), s.entriesAdded(), s.consumerGroups().size()};
        long body = lengthSize(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            body += stringSize(MemorySegment.ofArray(keys.get(i))) + stringSize(MemorySegment.ofArray(nodes.get(i)));
        }
        for (long c : counters) {
            body += lengthSize(c);
        }
        body += groupsSize(s.consumerGroups());
        byte[] out = new byte[Math.toIntExact(1 + body + form.footer)];
        MemorySegment o = MemorySegment.ofArray(out);
        out[0] = RdbStreams.STREAM_2;
        int at = writeLength(o, 1, nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            at = writeString(o, at, MemorySegment.ofArray(keys.get(i)));
            at = writeString(o, at, MemorySegment.ofArray(nodes.get(i)));
        }
        for (long c : counters) {
            at = writeLength(o, at, c);
        }
        at = writeGroups(o, at, s.consumerGroups());
        seal(o, at, form);
        return out;
    }

    /**
     * Redis writes a string as an integer when it is the canonical decimal of one of at most 32 bits.
     *
     * @return that integer, or {@link #NOT_SMALL}
     */
    private static long smallInteger(MemorySegment value) {
        if (value.byteSize() > 11 || !CanonicalDecimal.is(value)) {
            return NOT_SMALL;
        }
        long v = CanonicalDecimal.value(value);
        return v == (int) v ? v : NOT_SMALL;
    }

    /** @return the bytes {@link #writeGroups} writes */
    private static long groupsSize(List<RdbStreams.Group> groups) {
        long n = 0;
        for (RdbStreams.Group g : groups) {
            n += stringSize(MemorySegment.ofArray(g.name())) + lengthSize(g.lastMs()) + lengthSize(g.lastSeq())
                    + lengthSize(g.entriesRead()) + lengthSize(g.pending().size());
            for (RdbStreams.Pending p : g.pending()) {
                n += 16 + 8 + lengthSize(p.deliveryCount());
            }
            n += lengthSize(g.consumers().size());
            for (RdbStreams.Consumer c : g.consumers()) {
                n += stringSize(MemorySegment.ofArray(c.name())) + 8 + lengthSize(c.pending().size())
                        + 16L * c.pending().size();
            }
        }
        return n;
    }

    /** Writes a type 19 stream's consumer groups (drawn in {@link RdbValues#skipStream}); @return the offset after them */
    private static int writeGroups(MemorySegment o, int at, List<RdbStreams.Group> groups) {
        ValueLayout.OfLong be = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
        ValueLayout.OfLong le = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (RdbStreams.Group g : groups) {
            at = writeString(o, at, MemorySegment.ofArray(g.name()));
            at = writeLength(o, at, g.lastMs());
            at = writeLength(o, at, g.lastSeq());
            at = writeLength(o, at, g.entriesRead());
            at = writeLength(o, at, g.pending().size());
            for (RdbStreams.Pending p : g.pending()) {
                o.set(be, at, p.ms());
                o.set(be, at + 8, p.seq());
                o.set(le, at + 16, p.deliveryTime());
                at = writeLength(o, at + 24, p.deliveryCount());
            }
            at = writeLength(o, at, g.consumers().size());
            for (RdbStreams.Consumer c : g.consumers()) {
                at = writeString(o, at, MemorySegment.ofArray(c.name()));
                o.set(le, at, c.seenTime());
                at = writeLength(o, at + 8, c.pending().size());
                for (RdbStreams.Pending p : c.pending()) {
                    o.set(be, at, p.ms());
                    o.set(be, at + 8, p.seq());
                    at += 16;
                }
            }
        }
        return at;
    }

    /** @return the bytes of the RDB length {@code n}, unsigned (a stream ID's parts may use the 64th bit) */
    static int lengthSize(long n) {
        return Long.compareUnsigned(n, 1 << 6) < 0 ? 1 : Long.compareUnsigned(n, 1 << 14) < 0 ? 2
                : Long.compareUnsigned(n, 0xFFFF_FFFFL) <= 0 ? 5 : 9;
    }

    static int writeLength(MemorySegment o, int at, long n) {
        int size = lengthSize(n);
        if (size == 1) {
            o.set(ValueLayout.JAVA_BYTE, at, (byte) n);
            return at + 1;
        }
        if (size == 2) {
            o.set(ValueLayout.JAVA_BYTE, at, (byte) (0x40 | n >>> 8));
            o.set(ValueLayout.JAVA_BYTE, at + 1, (byte) n);
            return at + 2;
        }
        if (size == 5) {
            o.set(ValueLayout.JAVA_BYTE, at, (byte) 0x80);
            o.set(INT_BE, at + 1, (int) n);
            return at + 5;
        }
        o.set(ValueLayout.JAVA_BYTE, at, (byte) 0x81);
        o.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), at + 1, n);
        return at + 9;
    }
}
