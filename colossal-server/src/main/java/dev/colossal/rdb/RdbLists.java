package dev.colossal.rdb;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes the list encodings of RDB (see {@link RdbValues}): type 18, Redis 7's
 * quicklist of listpack nodes (what DUMP and SAVE write), and what older Redis wrote, types 1
 * (a count of strings), 10 (one ziplist) and 14 (a quicklist of ziplists).
 *
 * <pre>
 *  type 18: node count, then per node: container (1 plain: one element as a string;
 *           2 packed: a {@link Listpack} of elements, as a string)
 * </pre>
 */
public final class RdbLists {

    static final int LIST = 1;
    static final int ZIPLIST = 10;
    static final int QUICKLIST = 14;
    static final int QUICKLIST_2 = 18;
    private static final int PLAIN = 1;
    private static final int PACKED = 2;
    /** Redis 7.0's list-max-listpack-size -2: a node's listpack holds up to 8 KiB. */
    static final int NODE_BYTES = 8192;
    /** What Redis 7.0 adds to an element's length to judge whether it still fits a node: more than most entries take. */
    static final int ENTRY_OVERHEAD_ESTIMATE = 8;

    private RdbLists() {}

    /** @return whether {@code type} is a list encoding this reads */
    static boolean isList(int type) {
        return type == LIST || type == ZIPLIST || type == QUICKLIST || type == QUICKLIST_2;
    }

    /** @return the elements of the list of {@code type} at {@code in}; refused empty, as Redis refuses it */
    static List<byte[]> elements(RdbInput in, int type) throws RdbFormatException {
        long at = in.offset();
        List<byte[]> out = new ArrayList<>();
        switch (type) {
            case LIST -> {
                long n = in.length();
                if (n > in.size() - in.offset()) {
                    throw RdbInput.damaged(at, "a list of " + n + " elements in " + (in.size() - in.offset()) + " bytes");
                }
                for (long i = 0; i < n; i++) {
                    out.add(in.string());
                }
            }
            case ZIPLIST -> out.addAll(Ziplist.entries(in.string()));
            case QUICKLIST -> {
                long n = in.length();
                for (long i = 0; i < n; i++) {
                    out.addAll(Ziplist.entries(in.string()));
                }
            }
            default -> {
                long n = in.length();
                for (long i = 0; i < n; i++) {
                    long container = in.length();
                    if (container == PLAIN) {
                        out.add(in.string());
                    } else if (container == PACKED) {
                        List<byte[]> node = Listpack.entries(in.string());
                        if (node.isEmpty()) {
                            throw RdbInput.damaged(at, "a quicklist node with no elements");
                        }
                        out.addAll(node);
                    } else {
                        throw RdbInput.damaged(at, "quicklist container " + container + " is none Redis writes");
                    }
                }
            }
        }
        if (out.isEmpty()) {
            throw RdbInput.damaged(at, "an empty list");
        }
        return out;
    }

    /**
     * Splits {@code elements} into quicklist nodes as Redis 7.0's RPUSH fills them at its default
     * list-max-listpack-size (-2): a node takes one more element while its listpack's bytes, the
     * element's length and Redis's estimate of an entry's overhead ({@link #ENTRY_OVERHEAD_ESTIMATE})
     * come to 8 KiB at most; an element larger than that goes alone. (A list Redis grew at its head,
     * or by inserts, may be split otherwise: its DUMP then differs in where nodes end, not in what
     * they hold.)
     *
     * @return each node's listpack
     */
    static List<byte[]> nodes(List<byte[]> elements) {
        List<byte[]> nodes = new ArrayList<>();
        List<byte[]> node = new ArrayList<>();
        long size = 7; // the listpack's header and end
        for (byte[] e : elements) {
            int add = Listpack.entrySize(e);
            if (!node.isEmpty() && size + e.length + ENTRY_OVERHEAD_ESTIMATE > NODE_BYTES) {
                nodes.add(Listpack.write(node));
                node = new ArrayList<>();
                size = 7;
            }
            node.add(e);
            size += add;
        }
        if (!node.isEmpty()) {
            nodes.add(Listpack.write(node));
        }
        return nodes;
    }
}
