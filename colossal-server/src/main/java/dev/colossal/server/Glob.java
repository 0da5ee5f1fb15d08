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
        return match(p, 0, s, 0, 0, new boolean[1]);
    }

    /**
     * @param hopeless set when the pattern after a {@code *} matched from no position of the rest of
     *     the string: then no earlier {@code *} can help by taking more of it, since the rest would
     *     start later still. Without this, {@code a*a*...a*b} against a long run of {@code a} tried
     *     every split, exponentially many (KEYS with such a pattern never answered).
     */
    private static boolean match(byte[] p, int pi, byte[] s, int si, int depth, boolean[] hopeless) {
        if (depth > 1000) {
            return false; // pathological patterns: give up rather than blow the stack
        }
        while (pi < p.length) {
            switch (p[pi]) {
                case '*' -> {
                    while (pi + 1 < p.length && p[pi + 1] == '*') {
                        pi++;
                    }
                    if (pi + 1 == p.length) {
                        return true;
                    }
                    for (int k = si; k <= s.length; k++) {
                        if (match(p, pi + 1, s, k, depth + 1, hopeless)) {
                            return true;
                        }
                        if (hopeless[0]) {
                            return false;
                        }
                    }
                    hopeless[0] = true;
                    return false;
                }
                case '?' -> {
                    if (si >= s.length) {
                        return false;
                    }
                    si++;
                }
                case '[' -> {
                    if (si >= s.length) {
                        return false;
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
                        return false;
                    }
                    si++;
                }
                case '\\' -> {
                    if (pi + 1 < p.length) {
                        pi++;
                    }
                    if (si >= s.length || p[pi] != s[si]) {
                        return false;
                    }
                    si++;
                }
                default -> {
                    if (si >= s.length || p[pi] != s[si]) {
                        return false;
                    }
                    si++;
                }
            }
            pi++;
        }
        return si == s.length;
    }
}
