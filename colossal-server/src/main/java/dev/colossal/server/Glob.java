package dev.colossal.server;

/** Redis's glob-style pattern matching (KEYS, SCAN MATCH, CONFIG GET): {@code * ? [a-z] [^x] \x}. */
final class Glob {

    private Glob() {}

    /** @return whether {@code p} matches {@code s}, ASCII letters of either case alike */
    static boolean matchesIgnoringCase(byte[] p, byte[] s) {
        return matches(Args.lower(p).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1),
                Args.lower(s).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    }

    static boolean matches(byte[] p, byte[] s) {
        return match(p, 0, s, 0, 0) == MATCH;
    }

    private static final int NO = 0;
    private static final int MATCH = 1;
    /**
     * The pattern after a {@code *} matched from no position of the rest of the string: then no
     * earlier {@code *} can help by taking more of it, since the rest would start later still.
     * Without this, {@code a*a*...a*b} against a long run of {@code a} tried every split,
     * exponentially many (KEYS with such a pattern never answered).
     */
    private static final int HOPELESS = -1;

    /** @return {@link #MATCH}, {@link #NO} or {@link #HOPELESS} */
    private static int match(byte[] p, int pi, byte[] s, int si, int depth) {
        if (depth > 1000) {
            return NO; // pathological patterns: give up rather than blow the stack
        }
        while (pi < p.length) {
            switch (p[pi]) {
                case '*' -> {
                    while (pi + 1 < p.length && p[pi + 1] == '*') {
                        pi++;
                    }
                    if (pi + 1 == p.length) {
                        return MATCH;
                    }
                    for (int k = si; k <= s.length; k++) {
                        int rest = match(p, pi + 1, s, k, depth + 1);
                        if (rest != NO) {
                            return rest;
                        }
                    }
                    return HOPELESS;
                }
                case '?' -> {
                    if (si >= s.length) {
                        return NO;
                    }
                    si++;
                }
                case '[' -> {
                    if (si >= s.length) {
                        return NO;
                    }
                    pi++;
                    boolean not = pi < p.length && p[pi] == '^';
                    if (not) {
                        pi++;
                    }
                    boolean hit = false;
                    while (pi < p.length && p[pi] != ']') {
                        if (p[pi] == '\\' && pi + 1 < p.length) {
                            pi++;
                            hit |= p[pi] == s[si];
                        } else if (pi + 2 < p.length && p[pi + 1] == '-') {
                            int lo = p[pi] & 0xff;
                            int hi = p[pi + 2] & 0xff;
                            if (lo > hi) {
                                int t = lo;
                                lo = hi;
                                hi = t;
                            }
                            int c = s[si] & 0xff;
                            hit |= c >= lo && c <= hi;
                            pi += 2;
                        } else {
                            hit |= p[pi] == s[si];
                        }
                        pi++;
                    }
                    if (pi >= p.length) {
                        pi--; // unterminated class: Redis treats the end as its close
                    }
                    if (hit == not) {
                        return NO;
                    }
                    si++;
                }
                case '\\' -> {
                    if (pi + 1 < p.length) {
                        pi++;
                    }
                    if (si >= s.length || p[pi] != s[si]) {
                        return NO;
                    }
                    si++;
                }
                default -> {
                    if (si >= s.length || p[pi] != s[si]) {
                        return NO;
                    }
                    si++;
                }
            }
            pi++;
        }
        return si == s.length ? MATCH : NO;
    }
}
