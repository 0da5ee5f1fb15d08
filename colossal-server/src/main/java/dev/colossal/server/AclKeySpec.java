package dev.colossal.server;

import java.util.OptionalLong;

/**
 * One of a command's key specs, as Redis 7.0 declares them: where its keys begin (an argument
 * index, or after a keyword), how far they go (a range, or a count given as an argument), and
 * whether the command reads those keys' data ({@link #READ}) or changes them ({@link #WRITE}),
 * which decides whether a {@code %R~} or {@code %W~} pattern lets a user name them.
 *
 * @param access    {@link #READ} and/or {@link #WRITE}, 0 for a key the command neither reads nor
 *                  changes (OBJECT ENCODING's): any key pattern lets it through
 * @param index     the argument the search begins at, or for a keyword search where it starts
 *                  (negative: from the end, backwards); -1 for a spec that cannot be searched
 * @param keyword   the keyword after which the keys begin, or null
 * @param range     true for a range (last, step, limit), false for a count (its argument, first, step)
 * @param a         range: the last key relative to the first (negative: from the end); count: the
 *                  count's argument relative to the begin
 * @param b         range: the step; count: the first key relative to the begin
 * @param c         range: the limit (keys are 1/c of what remains); count: the step
 */
record AclKeySpec(int access, int index, String keyword, boolean range, int a, int b, int c) {

    static final int READ = 1;
    static final int WRITE = 2;

    /** Reads one spec of acl-commands.txt: {@code flags begin find}, e.g. {@code access,delete i1 r0,1,0}. */
    static AclKeySpec parse(String text) {
        String[] p = text.split(" ");
        int access = 0;
        for (String f : p[0].split(",")) {
            access |= f.equals("access") ? READ : f.equals("-") ? 0 : WRITE;
        }
        int index = -1;
        String keyword = null;
        if (p[1].startsWith("i")) {
            index = Integer.parseInt(p[1].substring(1));
        } else if (p[1].startsWith("k")) {
            String[] k = p[1].substring(1).split(",");
            keyword = k[0];
            index = Integer.parseInt(k[1]);
        }
        if (p[2].equals("u")) {
            return new AclKeySpec(access, -1, null, true, 0, 1, 0);
        }
        String[] n = p[2].substring(1).split(",");
        return new AclKeySpec(access, index, keyword, p[2].startsWith("r"), Integer.parseInt(n[0]),
                Integer.parseInt(n[1]), Integer.parseInt(n[2]));
    }

    /** Receives each key a spec finds. */
    @FunctionalInterface
    interface KeyVisitor {
        /** @return false to stop */
        boolean key(byte[] key, int access);
    }

    /**
     * Passes each key this spec finds in {@code args} (the request, name first) to {@code v}, as
     * Redis's key-spec walk finds them: a keyword not there, or a count that is not a number, finds none.
     *
     * @return false if {@code v} stopped
     */
    boolean forEachKey(byte[][] args, KeyVisitor v) {
        int argc = args.length;
        if (index < 0 && keyword == null) {
            return true;
        }
        int first = index;
        if (keyword != null) {
            first = -1;
            int from = index > 0 ? index : argc + index;
            int step = index > 0 ? 1 : -1;
            for (int i = from; i >= 1 && i < argc; i += step) {
                if (Args.is(args[i], keyword)) {
                    first = i + 1;
                    break;
                }
            }
            if (first < 0) {
                return true;
            }
        }
        int last;
        int step;
        if (range) {
            if (a >= 0) {
                last = first + a;
            } else if (c == 0) {
                last = argc + a;
            } else {
                last = first + (argc - first) / c + a;
            }
            step = b;
        } else {
            int at = first + a;
            if (at >= argc) {
                return true;
            }
            OptionalLong n = Args.toLong(args[at]);
            if (n.isEmpty() || n.getAsLong() < 0 || n.getAsLong() > argc) {
                return true;
            }
            first = first + b;
            step = c;
            last = first + ((int) n.getAsLong() - 1) * step;
        }
        for (int i = first; i <= last && i < argc; i += Math.max(1, step)) {
            if (!v.key(args[i], access)) {
                return false;
            }
        }
        return true;
    }
}
