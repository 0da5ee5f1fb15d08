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
import org.luaj.vm2.lib.VarArgFunction;
import org.luaj.vm2.lib.ZeroArgFunction;

/**
 * The {@code redis} table of Redis 7.0 scripts: {@code call} and {@code pcall} (see
 * {@link ScriptCalls}), {@code sha1hex}, {@code error_reply}, {@code status_reply}, and the rest as
 * harmless stand-ins: {@code log} checks its level and writes nothing (this server keeps no log file), replication
 * controls check their flags and do nothing (there are no replicas); {@code setresp} chooses the
 * protocol of the replies {@code call} converts ({@link LuaReplies}),
 * {@code acl_check_cmd} says yes to any command there is (the one user may run them all);
 * {@code debug} and {@code breakpoint} speak to the {@link LuaDebugger} when one watches the script.
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
        t.rawset("sha1hex", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() != 1) {
                    throw new LuaError(LuaValue.valueOf("wrong number of arguments"));
                }
                return LuaValue.valueOf(sha1hex(bytes(a.checkstring(1))));
            }
        });
        t.rawset("error_reply", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return oneString(a) ? LuaReplies.errorTable(errorText(a.arg1().tojstring())) : wrongArguments();
            }
        });
        t.rawset("status_reply", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (!oneString(a)) {
                    return wrongArguments();
                }
                LuaTable ok = new LuaTable();
                ok.rawset(LuaReplies.OK, a.arg1());
                return ok;
            }
        });
        t.rawset("acl_check_cmd", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return hook.run().calls.aclCheck(hook.run(), a);
            }
        });
        t.rawset("log", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() < 2) {
                    throw new LuaError(LuaValue.valueOf("redis.log() requires two arguments or more."));
                }
                if (!a.arg1().isnumber()) {
                    throw new LuaError(LuaValue.valueOf("First argument must be a number (log level)."));
                }
                double level = a.arg1().todouble();
                if (level < 0 || level > LOG_LEVELS.length - 1) {
                    throw new LuaError(LuaValue.valueOf("Invalid debug level."));
                }
                return LuaValue.NONE;
            }
        });
        t.rawset("setresp", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() != 1) {
                    throw new LuaError(LuaValue.valueOf("redis.setresp() requires one argument."));
                }
                // Lua's tonumber as Redis reads it: '3' is 3, what is no number 0, 3.7 cut to 3
                LuaValue n = a.arg1().tonumber();
                int resp = n.isnil() ? 0 : (int) LuaResult.truncate(n.todouble());
                if (resp != 2 && resp != 3) {
                    throw new LuaError(LuaValue.valueOf("RESP version must be 2 or 3."));
                }
                // The commands it calls from now on answer in that protocol; each script starts at 2
                hook.run().inner.reply.protocol = resp;
                return LuaValue.NONE;
            }
        });
        t.rawset("set_repl", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                // One argument, though Redis 7.0's message says two
                if (a.narg() != 1) {
                    throw new LuaError(LuaValue.valueOf("redis.set_repl() requires two arguments."));
                }
                LuaValue flags = a.arg1().tonumber(); // NIL for what is no number, which Lua reads as 0
                double f = flags.isnil() ? 0 : flags.todouble();
                if (f < 0 || f >= 4) { // REPL_AOF | REPL_REPLICA and what they make together
                    throw new LuaError(LuaValue.valueOf(
                            "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE."));
                }
                return LuaValue.NONE;
            }
        });
        t.rawset("breakpoint", new ZeroArgFunction() {
            @Override
            public LuaValue call() {
                LuaDebugger debugger = hook.debugger();
                if (debugger == null) {
                    return LuaValue.FALSE;
                }
                debugger.breakAtNextLine();
                return LuaValue.TRUE;
            }
        });
        t.rawset("debug", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                LuaDebugger debugger = hook.debugger();
                if (debugger != null) {
                    debugger.debug(a);
                }
                return LuaValue.NONE;
            }
        });
        t.rawset("replicate_commands", new ZeroArgFunction() {
            @Override
            public LuaValue call() {
                return LuaValue.TRUE;
            }
        });
        for (int i = 0; i < LOG_LEVELS.length; i++) {
            t.rawset(LOG_LEVELS[i], LuaValue.valueOf(i));
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

    /** redis.log's levels, their values in order. */
    private static final String[] LOG_LEVELS = {"LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING"};

    /**
     * What error_reply and status_reply return for anything but one string (a number too): an
     * error reply of its own, not a raised error, as in Redis. A new table each time, as a script
     * may change it.
     */
    private static LuaTable wrongArguments() {
        return LuaReplies.errorTable("ERR wrong number or type of arguments");
    }

    private static boolean oneString(Varargs a) {
        return a.narg() == 1 && a.arg1().type() == LuaValue.TSTRING;
    }

    /**
     * redis.error_reply's text as Redis 7.0 makes it: one leading {@code -} dropped (the reply adds
     * its own), and {@code ERR } put in front of a text with no space, which has no error code.
     */
    private static String errorText(String s) {
        String text = s.startsWith("-") ? s.substring(1) : s;
        return text.indexOf(' ') < 0 ? "ERR " + text : text;
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
