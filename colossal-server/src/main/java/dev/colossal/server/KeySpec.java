package dev.colossal.server;

import java.util.ArrayList;
import java.util.List;

/**
 * One of a command's key specs, as Redis 7.0 declares them and COMMAND INFO shows them: where its
 * keys begin (an argument index, after a keyword, or unknown), how far they go (a range, a count
 * given as an argument, or unknown), and flags that say what the command does with those keys.
 * COMMAND GETKEYS, COMMAND GETKEYSANDFLAGS and ACL's key checks all find keys through these
 * ({@link KeyFinder}), so a cluster client, a proxy and an ACL rule see the same keys.
 *
 * @param flags   the flags as bits of {@link #FLAG_NAMES}, in that order
 * @param begin   how the first key is found
 * @param index   {@link Begin#INDEX}: the first key's argument; {@link Begin#KEYWORD}: where the
 *                keyword search starts (negative: from the end, backwards)
 * @param keyword the keyword after which the keys begin, or null
 * @param find    how the keys after the first are found
 * @param a       range: the last key relative to the first (negative: from the end); count: the
 *                count's argument relative to the begin
 * @param b       range: the step; count: the first key relative to the begin
 * @param c       range: the limit (keys are 1/c of what remains); count: the step
 * @param notes   Redis's note on the spec, or null
 */
record KeySpec(int flags, Begin begin, int index, String keyword, Find find, int a, int b, int c, String notes) {

    /** How a spec finds its first key. */
    enum Begin { INDEX, KEYWORD, UNKNOWN }

    /** How a spec finds the keys from its first. */
    enum Find { RANGE, KEYNUM, UNKNOWN }

    /** Redis's key-spec flags, in the order its replies list them: a flag's bit is its index. */
    static final List<String> FLAG_NAMES = List.of("RO", "RW", "OW", "RM", "access", "update", "insert", "delete",
            "not_key", "incomplete", "variable_flags");
    static final int RO = 1;
    static final int RW = 1 << 1;
    static final int OW = 1 << 2;
    static final int RM = 1 << 3;
    static final int ACCESS = 1 << 4;
    static final int UPDATE = 1 << 5;
    static final int INSERT = 1 << 6;
    static final int DELETE = 1 << 7;
    static final int NOT_KEY = 1 << 8;
    static final int INCOMPLETE = 1 << 9;
    static final int VARIABLE_FLAGS = 1 << 10;

    /** ACL's permissions: what a {@code %R~} or {@code %W~} pattern grants. */
    static final int READ = 1;
    static final int WRITE = 2;

    /**
     * Reads one spec of redis-commands.txt: {@code flags begin find [~ notes]}, e.g.
     * {@code RW,access,delete i1 r0,1,0} or {@code RO,access kSTREAMS,1 r-1,1,2}.
     */
    static KeySpec parse(String text) {
        int tilde = text.indexOf(" ~ ");
        String notes = tilde < 0 ? null : text.substring(tilde + 3);
        String[] p = (tilde < 0 ? text : text.substring(0, tilde)).split(" ");
        if (p.length != 3) {
            throw new IllegalArgumentException("key spec needs flags, begin and find: spec=" + text);
        }
        int flags = 0;
        for (String f : p[0].split(",")) {
            int bit = FLAG_NAMES.indexOf(f);
            if (bit < 0) {
                throw new IllegalArgumentException("unknown key spec flag: flag=" + f + " spec=" + text);
            }
            flags |= 1 << bit;
        }
        Begin begin = Begin.UNKNOWN;
        int index = 0;
        String keyword = null;
        if (p[1].startsWith("i")) {
            begin = Begin.INDEX;
            index = Integer.parseInt(p[1].substring(1));
        } else if (p[1].startsWith("k")) {
            begin = Begin.KEYWORD;
            int comma = p[1].lastIndexOf(',');
            keyword = p[1].substring(1, comma);
            index = Integer.parseInt(p[1].substring(comma + 1));
        }
        if (p[2].equals("u")) {
            return new KeySpec(flags, begin, index, keyword, Find.UNKNOWN, 0, 0, 0, notes);
        }
        String[] n = p[2].substring(1).split(",");
        return new KeySpec(flags, begin, index, keyword, p[2].startsWith("r") ? Find.RANGE : Find.KEYNUM,
                Integer.parseInt(n[0]), Integer.parseInt(n[1]), Integer.parseInt(n[2]), notes);
    }

    boolean has(int flag) {
        return (flags & flag) != 0;
    }

    /** @return the names of {@code flags}' bits, in Redis's order */
    static List<String> flagNames(int flags) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < FLAG_NAMES.size(); i++) {
            if ((flags & 1 << i) != 0) {
                out.add(FLAG_NAMES.get(i));
            }
        }
        return out;
    }

    /**
     * @return what an ACL user needs on a key found with {@code flags}: {@link #READ} for a key whose
     *         data is read, {@link #WRITE} for one that is inserted, updated or deleted; 0 for one
     *         neither (OBJECT ENCODING's, a getkeys procedure's unflagged key): any pattern lets it through
     */
    static int aclAccess(int flags) {
        return ((flags & ACCESS) != 0 ? READ : 0) | ((flags & (INSERT | UPDATE | DELETE)) != 0 ? WRITE : 0);
    }

    /** Writes this spec as COMMAND INFO's map. */
    void reply(Reply r) {
        r.map(notes == null ? 3 : 4);
        if (notes != null) {
            r.bulk("notes");
            r.bulk(notes);
        }
        r.bulk("flags");
        replyFlags(r, flags);
        r.bulk("begin_search");
        r.map(2);
        r.bulk("type");
        switch (begin) {
            case INDEX -> {
                r.bulk("index");
                r.bulk("spec");
                r.map(1);
                r.bulk("index");
                r.integer(index);
            }
            case KEYWORD -> {
                r.bulk("keyword");
                r.bulk("spec");
                r.map(2);
                r.bulk("keyword");
                r.bulk(keyword);
                r.bulk("startfrom");
                r.integer(index);
            }
            case UNKNOWN -> {
                r.bulk("unknown");
                r.bulk("spec");
                r.map(0);
            }
        }
        r.bulk("find_keys");
        r.map(2);
        r.bulk("type");
        switch (find) {
            case RANGE -> find(r, "range", "lastkey", "keystep", "limit");
            case KEYNUM -> find(r, "keynum", "keynumidx", "firstkey", "keystep");
            case UNKNOWN -> {
                r.bulk("unknown");
                r.bulk("spec");
                r.map(0);
            }
        }
    }

    /** Writes find_keys' type and its three numbers ({@link #a}, {@link #b}, {@link #c}) under their names. */
    private void find(Reply r, String type, String nameA, String nameB, String nameC) {
        r.bulk(type);
        r.bulk("spec");
        r.map(3);
        field(r, nameA, a);
        field(r, nameB, b);
        field(r, nameC, c);
    }

    private static void field(Reply r, String name, int value) {
        r.bulk(name);
        r.integer(value);
    }

    /** Writes {@code flags} as Redis does: a set of status strings. */
    static void replyFlags(Reply r, int flags) {
        List<String> names = flagNames(flags);
        r.set(names.size());
        names.forEach(r::simple);
    }
}
