package dev.colossal.server;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.Prototype;

/**
 * Scripts compiled once and kept by the SHA1 of their body (lower-case hex), as EVAL and SCRIPT
 * LOAD add them and EVALSHA finds them; until SCRIPT FLUSH, as in Redis (which has no other bound
 * on its cache either). A compiled {@link Prototype} is never changed by running it, so every
 * event loop runs the same one.
 */
final class ScriptCache {

    /** A cached script: its body, what its shebang line declares, and its compiled form. */
    record Script(String sha, byte[] body, ScriptShebang shebang, Prototype code) {
    }

    private final ConcurrentHashMap<String, Script> bySha = new ConcurrentHashMap<>();
    private final AtomicLong bodyBytes = new AtomicLong();

    /**
     * @return the cached script of {@code body}, compiled and added if new
     * @throws ReplyException Redis's error reply if its shebang line is refused or it does not compile
     */
    Script load(byte[] body) {
        String sha = RedisLib.sha1hex(body);
        Script s = bySha.get(sha);
        if (s != null) {
            return s;
        }
        ScriptShebang shebang = ScriptShebang.parse(body);
        if (!shebang.declared() && body.length > 0 && body[0] == '#') {
            // LuaJ skips a first line that begins with '#' as a script file's; Redis's Lua 5.1
            // compiles a script as a string, where only a shebang is taken out
            throw new ReplyException(
                    "ERR Error compiling script (new function): user_script:1: unexpected symbol near '#'");
        }
        Prototype code;
        try {
            // A shebang line stays in the text, where LuaJ skips it, so the lines keep Redis's numbers
            code = LuaSandbox.compile(body);
        } catch (LuaError e) {
            throw new ReplyException("ERR Error compiling script (new function): " + luaWording(e.getMessage()));
        }
        Script added = new Script(sha, body, shebang, code);
        if (bySha.putIfAbsent(sha, added) == null) {
            bodyBytes.addAndGet(body.length);
            return added;
        }
        return bySha.get(sha);
    }

    /** @return the script of that SHA1 (in either case), or null */
    Script get(byte[] sha) {
        return sha.length == 40 ? bySha.get(Args.lower(sha)) : null;
    }

    void flush() {
        bySha.clear();
        bodyBytes.set(0);
    }

    int size() {
        return bySha.size();
    }

    /** INFO's {@code used_memory_scripts}: the bodies' bytes, a floor of what the compiled forms take. */
    long bytes() {
        return bodyBytes.get();
    }

    /** LuaJ's {@code unexpected symbol 286 (Ğ)}: the token's number and the char of that code. */
    private static final java.util.regex.Pattern LUAJ_SYMBOL = java.util.regex.Pattern.compile("unexpected symbol (\\d+) \\(.\\)$");
    /** LuaJ's reserved words and symbols from its first reserved token on (257): Lua 5.2's list, which it follows. */
    private static final String[] LUAJ_TOKENS = {"and", "break", "do", "else", "elseif", "end", "false", "for",
        "function", "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until",
        "while", "..", "...", "==", ">=", "<=", "~=", "::", "<eof>"};

    /**
     * A compile error as Lua words it where LuaJ words it otherwise: {@code unexpected symbol near
     * '+'} for LuaJ's {@code unexpected symbol 43 (+)}, and {@code near '<eof>'} where LuaJ printed
     * its end-of-stream token as a character ({@code 286 (Ğ)}). Names, numbers and strings (whose
     * text the message does not hold) and every other message stay as LuaJ has them.
     */
    static String luaWording(String message) {
        java.util.regex.Matcher m = LUAJ_SYMBOL.matcher(message);
        if (!m.find()) {
            return message;
        }
        int token = Integer.parseInt(m.group(1));
        String near;
        if (token < 257) {
            near = String.valueOf((char) token);
        } else if (token - 257 < LUAJ_TOKENS.length) {
            near = LUAJ_TOKENS[token - 257];
        } else {
            return message;
        }
        return message.substring(0, m.start()) + "unexpected symbol near '" + near + "'";
    }
}
