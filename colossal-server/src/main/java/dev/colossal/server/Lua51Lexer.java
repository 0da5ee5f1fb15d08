package dev.colossal.server;

/**
 * Lua 5.1's lexical rules over a chunk's bytes, for compile errors worded as Redis's Lua words
 * them: LuaJ's lexer follows Lua 5.2 and its messages name no token. It answers two questions,
 * both asked only when a script is first compiled (never as a cached one runs): the first
 * lexical error Lua 5.1 would meet ({@link #fault}), which LuaJ words otherwise or, for numbers
 * such as {@code 0x}, does not see at all; and, read token by token ({@link #next}), the text Lua
 * shows for the token a syntax error stopped at, its {@code near '...'} ({@link LuaCompiler}).
 *
 * <p>Lua 5.1 shows a name or number as written, a string as its delimiters around its contents
 * with escapes resolved, and any other token as its symbol, a control character as
 * {@code char(N)}, the end as {@code <eof>}.
 */
final class Lua51Lexer {

    /** A lexical error: Lua 5.1's message and the token it names, at line {@code line}, the token starting at {@code start}. */
    record Fault(int start, int line, String message, String near) {
        /** @return the error as Lua prints it for chunk {@code chunk} ({@code user_script}) */
        String text(String chunk) {
            return chunk + ":" + line + ": " + message + " near '" + near + "'";
        }
    }

    private static final java.util.Set<String> RESERVED = java.util.Set.of("and", "break", "do", "else", "elseif",
            "end", "false", "for", "function", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then",
            "true", "until", "while");

    /** A token's kinds, as far as the callers tell them apart. */
    enum Kind { NAME, RESERVED, NUMBER, STRING, SYMBOL, EOF }

    private final byte[] src;
    private final int end;
    private int pos;
    private int line = 1;
    /** The last token read: its kind, where it starts and ends (exclusive) and what Lua shows of it. */
    Kind kind;
    int start;
    int stop;
    String text;
    /** The first lexical error met, or null; {@link #next} reads no further after one. */
    Fault fault;

    Lua51Lexer(byte[] src, int off, int len) {
        this.src = src;
        this.pos = off;
        this.end = off + len;
        // LuaJ skips a first line that starts with '#' (a shebang, which Redis takes out): so does this
        while (pos < end && src[off] == '#' && src[pos] != '\n' && src[pos] != '\r') {
            pos++;
        }
    }

    /** @return the first lexical error Lua 5.1 meets in {@code src}, or null if its tokens all read */
    static Fault fault(byte[] src, int off, int len) {
        Lua51Lexer l = new Lua51Lexer(src, off, len);
        while (l.next()) {
            // read to the end or the first error
        }
        return l.fault;
    }

    private int peek(int ahead) {
        int i = pos + ahead;
        return i < end ? src[i] & 0xFF : -1;
    }

    /** Reads one newline: '\n', '\r', or either followed by the other. */
    private void newline() {
        int c = peek(0);
        pos++;
        int d = peek(0);
        if ((d == '\n' || d == '\r') && d != c) {
            pos++;
        }
        line++;
    }

    /** @return whether a token was read; false at the end or at a lexical error ({@link #fault}) */
    boolean next() {
        if (fault != null || kind == Kind.EOF) {
            return false;
        }
        while (true) {
            start = pos;
            int c = peek(0);
            switch (c) {
                case -1 -> {
                    return token(Kind.EOF, "<eof>", pos);
                }
                case '\n', '\r' -> newline();
                case ' ', '\t', 0x0B, '\f' -> pos++;
                case '-' -> {
                    if (peek(1) != '-') {
                        pos++;
                        return token(Kind.SYMBOL, "-", pos);
                    }
                    pos += 2;
                    if (peek(0) == '[') {
                        int sep = separator();
                        if (sep >= 0) {
                            if (!longString(sep, true)) {
                                return false;
                            }
                            continue;
                        }
                    }
                    while (peek(0) != -1 && peek(0) != '\n' && peek(0) != '\r') {
                        pos++;
                    }
                }
                case '[' -> {
                    int sep = separator();
                    if (sep >= 0) {
                        return longString(sep, false);
                    }
                    if (sep == -1) {
                        return token(Kind.SYMBOL, "[", pos);
                    }
                    return fail("invalid long string delimiter", text(start, pos));
                }
                case '=', '<', '>', '~' -> {
                    pos++;
                    if (peek(0) == '=') {
                        pos++;
                    }
                    return token(Kind.SYMBOL, text(start, pos), pos);
                }
                case '"', '\'' -> {
                    return string(c);
                }
                case '.' -> {
                    if (peek(1) == '.') {
                        pos += peek(2) == '.' ? 3 : 2;
                        return token(Kind.SYMBOL, text(start, pos), pos);
                    }
                    if (!digit(peek(1))) {
                        pos++;
                        return token(Kind.SYMBOL, ".", pos);
                    }
                    return number();
                }
                default -> {
                    if (digit(c)) {
                        return number();
                    }
                    if (letter(c)) {
                        while (letter(peek(0)) || digit(peek(0))) {
                            pos++;
                        }
                        String word = text(start, pos);
                        return token(RESERVED.contains(word) ? Kind.RESERVED : Kind.NAME, word, pos);
                    }
                    pos++;
                    return token(Kind.SYMBOL, c < 32 || c == 127 ? "char(" + c + ")" : String.valueOf((char) c), pos);
                }
            }
        }
    }

    private boolean token(Kind k, String shown, int after) {
        kind = k;
        text = shown;
        stop = after;
        return true;
    }

    private boolean fail(String message, String near) {
        fault = new Fault(start, line, message, near);
        return false;
    }

    /** At '[': reads '[' '='* and returns their count if a second '[' follows (read too), else -1 - count, having read the '['. */
    private int separator() {
        int s = pos + 1;
        int count = 0;
        while (s < end && src[s] == '=') {
            s++;
            count++;
        }
        if (s < end && src[s] == '[') {
            pos = s + 1;
            return count;
        }
        pos = s;
        return -1 - count;
    }

    /** Reads a long string or comment up to its closing bracket of {@code sep} '='s. */
    private boolean longString(int sep, boolean comment) {
        int from = pos;
        while (true) {
            int c = peek(0);
            if (c == -1) {
                start = pos;
                return fail(comment ? "unfinished long comment" : "unfinished long string", "<eof>");
            }
            if (c == '\n' || c == '\r') {
                newline();
            } else if (c == ']') {
                int s = pos + 1;
                int count = 0;
                while (s < end && src[s] == '=') {
                    s++;
                    count++;
                }
                if (count == sep && s < end && src[s] == ']') {
                    pos = s + 1;
                    return comment || token(Kind.STRING, "[" + "=".repeat(sep) + "[" + text(from, pos), pos);
                }
                pos++;
            } else {
                pos++;
            }
        }
    }

    /** Reads a quoted string, Lua 5.1's escapes resolved into what it shows (an unknown escape is its character). */
    private boolean string(int quote) {
        StringBuilder shown = new StringBuilder().append((char) quote);
        pos++;
        while (true) {
            int c = peek(0);
            if (c == quote) {
                pos++;
                return token(Kind.STRING, shown.append((char) quote).toString(), pos);
            }
            if (c == -1) {
                return fail("unfinished string", "<eof>");
            }
            if (c == '\n' || c == '\r') {
                return fail("unfinished string", shown.toString());
            }
            pos++;
            if (c != '\\') {
                shown.append((char) c);
                continue;
            }
            int e = peek(0);
            switch (e) {
                case -1 -> {
                    // the next turn finds the end: an unfinished string
                }
                case 'a' -> append(shown, 7);
                case 'b' -> append(shown, '\b');
                case 'f' -> append(shown, '\f');
                case 'n' -> append(shown, '\n');
                case 'r' -> append(shown, '\r');
                case 't' -> append(shown, '\t');
                case 'v' -> append(shown, 0x0B);
                case '\n', '\r' -> {
                    shown.append('\n');
                    newline();
                }
                default -> {
                    if (!digit(e)) {
                        append(shown, e);
                    } else {
                        int v = 0;
                        for (int i = 0; i < 3 && digit(peek(0)); i++) {
                            v = v * 10 + peek(0) - '0';
                            pos++;
                        }
                        if (v > 255) {
                            return fail("escape sequence too large", shown.toString());
                        }
                        shown.append((char) v);
                    }
                }
            }
        }
    }

    private void append(StringBuilder shown, int c) {
        shown.append((char) c);
        pos++;
    }

    /**
     * Reads a number as Lua 5.1 gathers one (digits and points, an exponent's sign, then any
     * letters, digits and '_') and refuses it unless C's strtod takes all of it.
     */
    private boolean number() {
        while (digit(peek(0)) || peek(0) == '.') {
            pos++;
        }
        if (peek(0) == 'e' || peek(0) == 'E') {
            pos++;
            if (peek(0) == '+' || peek(0) == '-') {
                pos++;
            }
        }
        while (letter(peek(0)) || digit(peek(0))) {
            pos++;
        }
        String n = text(start, pos);
        if (strtodLength(n) != n.length()) {
            return fail("malformed number", n);
        }
        return token(Kind.NUMBER, n, pos);
    }

    /** @return how many leading characters of {@code s} (no sign, no spaces) C's strtod reads as a number */
    static int strtodLength(String s) {
        int n = s.length();
        if (n > 2 && s.charAt(0) == '0' && (s.charAt(1) == 'x' || s.charAt(1) == 'X')) {
            int i = 2;
            int digits = 0;
            while (i < n && hex(s.charAt(i))) {
                i++;
                digits++;
            }
            if (i < n && s.charAt(i) == '.') {
                i++;
                while (i < n && hex(s.charAt(i))) {
                    i++;
                    digits++;
                }
            }
            if (digits > 0) {
                return exponent(s, i, 'p');
            }
            // "0x" with no hex digit after it: strtod reads the "0"
        }
        int i = 0;
        int digits = 0;
        while (i < n && digit(s.charAt(i))) {
            i++;
            digits++;
        }
        if (i < n && s.charAt(i) == '.') {
            i++;
            while (i < n && digit(s.charAt(i))) {
                i++;
                digits++;
            }
        }
        return digits == 0 ? 0 : exponent(s, i, 'e');
    }

    /** @return where a number ending at {@code i} ends with its exponent ({@code e} or {@code p} and digits), if a whole one follows */
    private static int exponent(String s, int i, char mark) {
        int n = s.length();
        if (i < n && Character.toLowerCase(s.charAt(i)) == mark) {
            int j = i + 1;
            if (j < n && (s.charAt(j) == '+' || s.charAt(j) == '-')) {
                j++;
            }
            if (j < n && digit(s.charAt(j))) {
                while (j < n && digit(s.charAt(j))) {
                    j++;
                }
                return j;
            }
        }
        return i;
    }

    private String text(int from, int to) {
        return new String(src, from, to - from, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    private static boolean digit(int c) {
        return c >= '0' && c <= '9';
    }

    private static boolean hex(int c) {
        return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    /** C's isalpha in the "C" locale, and '_'. */
    private static boolean letter(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    }
}
