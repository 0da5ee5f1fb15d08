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
            throw new ReplyException("ERR Error compiling script (new function): " + e.getMessage());
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
}
