package dev.colossal.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.OneArgFunction;
import org.luaj.vm2.lib.VarArgFunction;
import org.luaj.vm2.lib.ZeroArgFunction;

/**
 * The {@code redis} table of Redis 7.0 scripts: {@code call} and {@code pcall} (see
 * {@link ScriptCalls}), {@code sha1hex}, {@code error_reply}, {@code status_reply}, and the rest as
 * harmless stand-ins: {@code log} writes nothing (this server keeps no log file), replication
 * controls do nothing (there are no replicas), {@code setresp} accepts 2 only.
 */
final class RedisLib {

    private final ScriptHook hook;

    RedisLib(ScriptHook hook) {
        this.hook = hook;
    }

    LuaTable table() {
        LuaTable t = new LuaTable();
        t.rawset("call", new Call(true));
        t.rawset("pcall", new Call(false));
        t.rawset("sha1hex", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue s) {
                return LuaValue.valueOf(sha1hex(bytes(s.checkstring())));
            }
        });
        t.rawset("error_reply", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue s) {
                return LuaReplies.errorTable(withoutDash(s.checkjstring()));
            }
        });
        t.rawset("status_reply", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue s) {
                LuaTable ok = new LuaTable();
                ok.rawset(LuaReplies.OK, s.checkstring());
                return ok;
            }
        });
        t.rawset("log", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() < 2) {
                    throw new LuaError(LuaValue.valueOf("redis.log() requires two arguments or more."));
                }
                a.checkint(1);
                return LuaValue.NONE;
            }
        });
        t.rawset("setresp", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue v) {
                if (v.checkint() != 2) {
                    throw new LuaError(LuaValue.valueOf(hook.where(1) + "this server's scripts speak RESP2 only"));
                }
                return LuaValue.NONE;
            }
        });
        ZeroArgFunction nothing = new ZeroArgFunction() {
            @Override
            public LuaValue call() {
                return LuaValue.NIL;
            }
        };
        t.rawset("set_repl", nothing);
        t.rawset("breakpoint", nothing);
        t.rawset("debug", nothing);
        t.rawset("replicate_commands", new ZeroArgFunction() {
            @Override
            public LuaValue call() {
                return LuaValue.TRUE;
            }
        });
        String[] levels = {"LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING"};
        for (int i = 0; i < levels.length; i++) {
            t.rawset(levels[i], LuaValue.valueOf(i));
        }
        String[] repl = {"REPL_NONE", "REPL_AOF", "REPL_SLAVE", "REPL_REPLICA", "REPL_ALL"};
        int[] replValues = {0, 1, 2, 2, 3};
        for (int i = 0; i < repl.length; i++) {
            t.rawset(repl[i], LuaValue.valueOf(replValues[i]));
        }
        t.rawset("REDIS_VERSION", LuaValue.valueOf(ServerContext.REDIS_VERSION));
        t.rawset("REDIS_VERSION_NUM", LuaValue.valueOf(versionNumber(ServerContext.REDIS_VERSION)));
        return t;
    }

    /** {@code redis.call} or {@code redis.pcall}, for the script running on this thread. */
    private final class Call extends VarArgFunction {
        private final boolean raise;

        Call(boolean raise) {
            this.raise = raise;
        }

        @Override
        public Varargs invoke(Varargs a) {
            ScriptRun run = hook.run();
            return run.calls.call(run, a, raise);
        }
    }

    /** Redis drops one leading {@code -} from redis.error_reply's text: the reply adds its own. */
    private static String withoutDash(String s) {
        return s.startsWith("-") ? s.substring(1) : s;
    }

    /** {@code 7.0.15} as Redis numbers it: 0x07000f. */
    private static int versionNumber(String v) {
        String[] p = v.split("\\.");
        return Integer.parseInt(p[0]) << 16 | Integer.parseInt(p[1]) << 8 | Integer.parseInt(p[2]);
    }

    static byte[] bytes(LuaString s) {
        byte[] b = new byte[s.m_length];
        System.arraycopy(s.m_bytes, s.m_offset, b, 0, s.m_length);
        return b;
    }

    /** The SHA1 of {@code body} in lower-case hex, the name Redis caches a script by. */
    static String sha1hex(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }

    static String sha1hex(String body) {
        return sha1hex(body.getBytes(StandardCharsets.UTF_8));
    }
}
