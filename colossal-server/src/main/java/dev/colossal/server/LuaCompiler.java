package dev.colossal.server;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.luaj.vm2.Lua;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.compiler.LuaC;

/**
 * Compiles Lua with LuaJ and words its compile errors as Lua 5.1 does, which Redis's replies
 * carry: {@code user_script:1: '=' expected near 'x'}. LuaJ's messages name no token, call the end
 * {@code <eos>}, say "syntax error" where Lua 5.1's parser (older than LuaJ's 5.2 one) expects an
 * '=', and its lexer takes numbers Lua 5.1 refuses ({@code 0x}). So a chunk is also read by
 * {@link Lua51Lexer} for the first lexical error Lua 5.1 would meet, and when LuaJ refuses the
 * chunk, the token it stopped at is found by compiling it once more through a stream that counts
 * the bytes LuaJ's lexer read (it reads one byte past the token it is on). That costs nothing
 * once a script compiled: EVALSHA runs the compiled form.
 */
final class LuaCompiler {

    /** LuaJ's {@code unexpected symbol 286 (Ğ)}: the token's number and the character of that code. */
    private static final java.util.regex.Pattern LUAJ_SYMBOL =
            java.util.regex.Pattern.compile("(?s)unexpected symbol \\d+ \\(.\\)$");

    /** LuaJ's text for a break outside a loop. */
    private static final java.util.regex.Pattern BREAK =
            java.util.regex.Pattern.compile("no visible label 'break' for <goto> at line \\d+$");

    private LuaCompiler() {
    }

    /**
     * @param chunkname LuaJ's name of the chunk: {@code @user_script} for a script (shown as
     *     {@code user_script}), or the source itself for {@code loadstring}
     * @throws LuaError with Lua 5.1's message if the chunk does not compile
     */
    static Prototype compile(byte[] src, int off, int len, String chunkname) {
        Lua51Lexer.Fault fault = Lua51Lexer.fault(src, off, len);
        Prototype p;
        try {
            p = LuaC.instance.compile(new ByteArrayInputStream(src, off, len), chunkname);
        } catch (LuaError | NumberFormatException e) { // LuaJ's lexer lets Java's refusal of a number out
            throw new LuaError(wording(src, off, len, chunkname, String.valueOf(e.getMessage()), fault));
        } catch (IOException e) {
            throw new LuaError(e.getMessage());
        }
        if (fault != null) {
            throw new LuaError(fault.text(Lua.chunkid(chunkname)));
        }
        return p;
    }

    /** LuaJ's message {@code luaj} for a chunk it refused, as Lua 5.1 words it. */
    private static String wording(byte[] src, int off, int len, String chunkname, String luaj,
                                  Lua51Lexer.Fault fault) {
        int at = stoppedAt(src, off, len, chunkname);
        // Tokens up to the one LuaJ stopped at; what ended before it tells a "syntax error" apart
        Lua51Lexer l = new Lua51Lexer(src, off, len);
        Lua51Lexer.Kind prevKind = null;
        String prevText = "";
        java.util.ArrayDeque<Boolean> parens = new java.util.ArrayDeque<>();
        boolean closedCall = false;
        while (l.next()) {
            if (l.kind == Lua51Lexer.Kind.EOF || (at >= 0 && l.stop >= at)) {
                break;
            }
            if (l.kind == Lua51Lexer.Kind.SYMBOL && l.text.equals("(")) {
                parens.push(callEnd(prevKind, prevText));
            } else if (l.kind == Lua51Lexer.Kind.SYMBOL && l.text.equals(")")) {
                closedCall = !parens.isEmpty() && parens.pop();
            }
            prevKind = l.kind;
            prevText = l.text;
        }
        if (fault != null && (l.fault != null || l.kind == null || fault.start() <= l.start)) {
            return fault.text(Lua.chunkid(chunkname));
        }
        if (l.kind == null) {
            return luaj;
        }
        String near = l.kind == Lua51Lexer.Kind.EOF ? "<eof>" : l.text;
        String m = LUAJ_SYMBOL.matcher(luaj).replaceFirst("unexpected symbol").replace("'<eos>'", "'<eof>'");
        // LuaJ's 5.2 parser makes break a goto to a label; Lua 5.1's has no labels
        m = BREAK.matcher(m).replaceFirst("no loop to break");
        if (m.endsWith(": syntax error")) {
            // LuaJ's 5.2 parser says this of a statement that is no call and no assignment. Lua 5.1's
            // expects an '=' after a variable, ends a call's statement at the call (the ',' or '='
            // after it starts no statement), and says "syntax error" of anything else.
            boolean comma = l.text.equals("=") || l.text.equals(",");
            boolean variable = prevKind == Lua51Lexer.Kind.NAME || "]".equals(prevText);
            boolean call = prevKind == Lua51Lexer.Kind.STRING || "}".equals(prevText) || (")".equals(prevText) && closedCall);
            String head = m.substring(0, m.length() - "syntax error".length());
            if (variable && !comma) {
                m = head + "'=' expected";
            } else if (call && comma) {
                m = head + "unexpected symbol";
            }
        }
        return m + " near '" + near + "'";
    }

    /** @return whether a '(' after this token opens a call's arguments (not a parenthesised expression) */
    private static boolean callEnd(Lua51Lexer.Kind kind, String text) {
        return kind == Lua51Lexer.Kind.NAME || kind == Lua51Lexer.Kind.STRING || "]".equals(text) || "}".equals(text)
                || ")".equals(text);
    }

    /**
     * Compiles the chunk again with a newline after it, counting LuaJ's reads: its lexer is one
     * byte past the token it stopped at, or has read past the end for {@code <eof>}.
     *
     * @return the offset the token LuaJ stopped at ends at (exclusive), or -1 for the end
     */
    private static int stoppedAt(byte[] src, int off, int len, String chunkname) {
        int[] reads = {0};
        InputStream counted = new InputStream() {
            @Override
            public int read() {
                int i = reads[0]++;
                return i < len ? src[off + i] & 0xFF : i == len ? '\n' : -1;
            }
        };
        try {
            LuaC.instance.compile(counted, chunkname);
        } catch (LuaError | NumberFormatException | IOException e) {
            // expected: it failed the first time
        }
        return reads[0] > len + 1 ? -1 : off + reads[0] - 1;
    }
}
