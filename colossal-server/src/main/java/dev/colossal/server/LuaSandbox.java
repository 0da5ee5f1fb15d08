package dev.colossal.server;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LoadState;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.BaseLib;
import org.luaj.vm2.lib.LibFunction;
import org.luaj.vm2.lib.MathLib;
import org.luaj.vm2.lib.OneArgFunction;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.ThreeArgFunction;
import org.luaj.vm2.lib.TwoArgFunction;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The Lua world scripts run in, one per thread (LuaJ's state is not thread-safe, and a script runs
 * start to end on the event loop that received it). What a script sees is what Redis 7.0 gives:
 * the base library without files or printing, {@code string}, {@code table}, {@code math},
 * {@code unpack} and {@code loadstring} as Lua 5.1 has them, {@code redis} ({@link RedisLib}),
 * {@code cjson} ({@link LuaJson}), {@code bit} ({@link LuaBit}), {@code struct} ({@link LuaStruct}),
 * {@code cmsgpack} ({@link LuaMsgPack}) and {@code KEYS}/{@code ARGV}; no {@code io}, {@code os},
 * {@code debug}, {@code package}, {@code require}, coroutines (LuaJ runs each on a thread of its
 * own) or {@code luajava}.
 *
 * <p>Globals are read-only, as in Redis: scripts see them through an empty table whose metatable
 * refuses writes and answers an unknown name with an error, so a script can leave nothing behind
 * for the next. The library tables are read-only the same way; {@code pairs} and {@code next} see
 * through them to the library's fields, as Redis's read-only tables let a script list them.
 */
final class LuaSandbox {

    private static final ThreadLocal<LuaSandbox> PER_THREAD = ThreadLocal.withInitial(LuaSandbox::new);
    private static final LuaString KEYS = LuaValue.valueOf("KEYS");
    private static final LuaString ARGV = LuaValue.valueOf("ARGV");
    static final String READONLY = "Attempt to modify a readonly table";

    private final Globals globals = new Globals();
    private final ScriptHook hook = new ScriptHook();
    /**
     * What scripts see as their globals (see the class comment). A {@link Globals} itself, and
     * sharing the hook and the running thread of the real one: LuaJ hooks only closures made
     * with a {@code Globals} as their environment, and xpcall's handler is found through it.
     */
    private final Globals env = new Globals();
    /** The tables scripts may not change, rawset included; by identity. */
    private final java.util.Set<LuaValue> readOnly = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    /** The library each read-only proxy stands for, for {@code pairs} and {@code next}; by identity. */
    private final java.util.Map<LuaValue, LuaTable> libraries = new java.util.IdentityHashMap<>();
    /**
     * Where {@link #env}'s names are looked up: {@link #globals}, or while a function library loads,
     * a table with nothing but the {@code redis} of {@link FunctionRegistration}. Swapped, not copied,
     * so that the functions a library registers see every global when they run later, as in Redis.
     */
    private LuaTable lookup;
    /** Each function library's functions as this thread's Lua made them, by library (identity). */
    private final java.util.Map<FunctionLibraries.Library, java.util.Map<String, LuaFunction>> functions =
            new java.util.WeakHashMap<>();

    static LuaSandbox ofThisThread() {
        return PER_THREAD.get();
    }

    private LuaSandbox() {
        globals.load(new BaseLib());
        globals.load(new PackageLib()); // the other libraries register through it; removed below
        globals.load(new TableLib());
        globals.load(new StringLib());
        globals.load(new MathLib());
        LoadState.install(globals);
        LuaC.install(globals);
        globals.load(hook);
        env.debuglib = hook;
        env.running = globals.running;
        env.baselib = globals.baselib;
        env.compiler = globals.compiler;
        env.loader = globals.loader;
        env.STDOUT = null;
        // LuaJ's own runtime errors get Lua 5.1's words where they arise, for pcall as for the reply
        globals.running.errorfunc = new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue message) {
                return hook.raised(message);
            }
        };
        env.STDERR = null;
        for (String gone : new String[] {"debug", "package", "require", "dofile", "loadfile", "load", "print",
                "collectgarbage", "module"}) {
            globals.rawset(gone, LuaValue.NIL);
        }
        LuaTable table = (LuaTable) globals.rawget("table");
        globals.rawset("unpack", LuaTables.install(table, hook::where));
        table.rawset("getn", new OneArgFunction() {
            @Override
            public LuaValue call(LuaValue t) {
                return LuaValue.valueOf(t.checktable().length());
            }
        });
        globals.rawset("error", new ErrorFunction());
        LuaValue xpcall = globals.rawget("xpcall");
        globals.rawset("xpcall", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                LuaValue handler = a.arg(2);
                if (handler.isnil()) {
                    return xpcall.invoke(a); // refused as LuaJ refuses it
                }
                // xpcall's handler takes the place of the sandbox's (LuaSandbox's errorfunc) while f
                // runs: it is given LuaJ's own errors in Lua 5.1's words too
                LuaValue lua51 = new OneArgFunction() {
                    @Override
                    public LuaValue call(LuaValue message) {
                        return handler.call(hook.raised(message));
                    }
                };
                return xpcall.invoke(LuaValue.varargsOf(a.arg1(), lua51, a.subargs(3)));
            }
        });
        globals.rawset("tostring", LuaFormat.tostring(globals.rawget("tostring")));
        ((LuaTable) globals.rawget("string")).rawset("format", LuaFormat.format(hook::where));
        globals.rawset("loadstring", new LoadString());
        globals.rawset("redis", new RedisLib(hook).table());
        globals.rawset("cjson", LuaJson.table(hook::where));
        globals.rawset("bit", LuaBit.table());
        globals.rawset("struct", LuaStruct.table(hook::where));
        globals.rawset("cmsgpack", LuaMsgPack.table(hook::where));
        for (String lib : new String[] {"string", "table", "math", "redis", "cjson", "bit", "struct", "cmsgpack"}) {
            globals.rawset(lib, readOnly((LuaTable) globals.rawget(lib)));
        }
        readOnly.add(env);
        listLibraries();
        globals.rawset("_G", env);
        globals.rawset("_VERSION", LuaValue.valueOf("Lua 5.1"));
        LuaValue rawset = globals.rawget("rawset");
        globals.rawset("rawset", new ThreeArgFunction() {
            @Override
            public LuaValue call(LuaValue table, LuaValue key, LuaValue value) {
                if (readOnly.contains(table)) {
                    throw new LuaError(LuaValue.valueOf(READONLY));
                }
                return rawset.call(table, key, value);
            }
        });
        LuaTable meta = new LuaTable();
        lookup = globals;
        meta.rawset(LuaValue.INDEX, new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue self, LuaValue name) {
                LuaValue v = lookup.rawget(name);
                if (v.isnil()) {
                    throw new LuaError(LuaValue.valueOf(hook.where(1)
                            + "Script attempted to access nonexistent global variable '" + name.tojstring() + "'"));
                }
                return v;
            }
        });
        meta.rawset(LuaValue.NEWINDEX, new Refuse());
        // getmetatable(_G) gives the metatable as Redis's does, read-only: a script that changes it
        // is refused as for any read-only table, not by Lua's own protected-metatable text
        meta.rawset(LuaValue.METATABLE, readOnly(meta));
        env.setmetatable(meta);
        LuaValue setmetatable = globals.rawget("setmetatable");
        globals.rawset("setmetatable", new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue table, LuaValue metatable) {
                if (readOnly.contains(table)) {
                    throw new LuaError(LuaValue.valueOf(READONLY)); // no position: Redis's refusal comes from C
                }
                return setmetatable.call(table, metatable);
            }
        });
    }

    /**
     * Replaces {@code next} and {@code pairs} with ones that iterate a library's own table when
     * given its read-only proxy. The iterator is given the proxy, never the table, which has no
     * metatable to refuse a write.
     */
    private void listLibraries() {
        LuaValue next = globals.rawget("next");
        LuaValue pairs = globals.rawget("pairs");
        VarArgFunction seeThroughNext = new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                LuaTable real = libraries.get(a.arg1());
                return real == null ? next.invoke(a) : real.next(a.arg(2));
            }
        };
        globals.rawset("next", seeThroughNext);
        globals.rawset("pairs", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return libraries.containsKey(a.arg1())
                        ? LuaValue.varargsOf(seeThroughNext, a.arg1(), LuaValue.NIL) : pairs.invoke(a);
            }
        });
    }

    /** An empty table that reads through to {@code real} and refuses writes. */
    private LuaTable readOnly(LuaTable real) {
        LuaTable proxy = new LuaTable();
        LuaTable meta = new LuaTable();
        meta.rawset(LuaValue.INDEX, real);
        meta.rawset(LuaValue.NEWINDEX, new Refuse());
        meta.rawset(LuaValue.METATABLE, LuaValue.FALSE);
        proxy.setmetatable(meta);
        readOnly.add(proxy);
        readOnly.add(real);
        libraries.put(proxy, real);
        return proxy;
    }

    /**
     * Compiles a script's body as Redis names it ({@code user_script}, so errors read
     * {@code user_script:1: ...}).
     *
     * @throws LuaError with Lua 5.1's message if it does not compile ({@link LuaCompiler})
     */
    static Prototype compile(byte[] body) {
        return LuaCompiler.compile(body, 0, body.length, "@user_script");
    }

    /**
     * Runs {@code code} for {@code run} with its KEYS and ARGV, on this thread.
     *
     * @return what the script returned (its first value)
     * @throws LuaError           the script failed
     * @throws ScriptHook.Killed  SCRIPT KILL stopped it
     * @throws StackOverflowError it recursed past what the thread's stack holds
     */
    LuaValue run(ScriptRun run, Prototype code, byte[][] keys, byte[][] argv) {
        globals.rawset(KEYS, strings(keys));
        globals.rawset(ARGV, strings(argv));
        hook.start(run);
        if (run.debugger != null) {
            run.debugger.attach(this, hook);
        }
        try {
            return new LuaClosure(code, env).call();
        } finally {
            hook.stop();
            globals.rawset(KEYS, LuaValue.NIL);
            globals.rawset(ARGV, LuaValue.NIL);
            // rawset bypasses the read-only metatable: whatever a script put there goes with it.
            for (LuaValue k : env.keys()) {
                env.rawset(k, LuaValue.NIL);
            }
        }
    }

    /**
     * Compiles a function library's code as Redis names it ({@code user_function}).
     *
     * @throws LuaError with Lua 5.1's message if it does not compile ({@link LuaCompiler})
     */
    static Prototype compileLibrary(byte[] code) {
        return LuaCompiler.compile(code, 0, code.length, "@user_function");
    }

    /**
     * Runs a library's code for {@code run}, with nothing but {@code redis.register_function},
     * {@code redis.log} and the version and log-level constants to see, as Redis loads one.
     *
     * @return the functions it registered, in order
     * @throws LuaError          the code failed, or registered badly (Redis's texts)
     * @throws ScriptHook.Killed it ran past its time
     */
    java.util.List<FunctionRegistration.Registered> register(ScriptRun run, Prototype code) {
        FunctionRegistration registration = new FunctionRegistration(hook);
        LuaTable loading = new LuaTable();
        loading.rawset("redis", registration.table());
        lookup = loading;
        hook.start(run, "user_function");
        try {
            new LuaClosure(code, env).call();
        } finally {
            hook.stop();
            lookup = globals;
            for (LuaValue k : env.keys()) {
                env.rawset(k, LuaValue.NIL);
            }
            registration.close(); // a function that kept the table may not register later
        }
        return registration.registered();
    }

    /**
     * @return function {@code name} of {@code library} as this thread's Lua has it, the library's
     *     code run here first if it has not been (each event loop has a Lua of its own)
     */
    LuaFunction function(ScriptRun run, FunctionLibraries.Library library, String name) {
        java.util.Map<String, LuaFunction> made = functions.get(library);
        if (made == null) {
            made = new java.util.HashMap<>();
            for (FunctionRegistration.Registered r : register(run, library.code())) {
                made.put(r.name(), r.callback());
            }
            functions.put(library, made);
        }
        return made.get(name);
    }

    /**
     * Calls a registered function for {@code run} with its keys and arguments, as FCALL does.
     *
     * @return what it returned (its first value)
     */
    LuaValue call(ScriptRun run, LuaFunction f, byte[][] keys, byte[][] argv) {
        hook.start(run, "user_function");
        try {
            return f.call(strings(keys), strings(argv));
        } finally {
            hook.stop();
            for (LuaValue k : env.keys()) {
                env.rawset(k, LuaValue.NIL);
            }
        }
    }

    /**
     * The debugger's eval: runs {@code code} in a function of its own, as an expression if it
     * compiles as one ({@code return code}), with the script's globals, naming its errors'
     * positions {@code ldb_eval}. Its lines are not the script's: the script's last line stays.
     *
     * @return its first value
     * @throws LuaError it did not compile, or failed
     */
    LuaValue debugEval(String code) {
        byte[] expression = ("return " + code).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Prototype p;
        try {
            p = LuaCompiler.compile(expression, 0, expression.length, "@ldb_eval");
        } catch (LuaError notAnExpression) {
            byte[] statements = code.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            p = LuaCompiler.compile(statements, 0, statements.length, "@ldb_eval");
        }
        int line = hook.lastLine();
        String chunk = hook.chunk("ldb_eval");
        try {
            return new LuaClosure(p, env).call();
        } finally {
            hook.chunk(chunk);
            hook.lastLine(line);
        }
    }

    /** @return global {@code name} as the script sees it, nil if it has none (no error, as a script's read would give) */
    LuaValue global(String name) {
        return globals.rawget(name);
    }

    /** @return {@code text}, the last script's error after LuaJ's wording is made Lua's, as Lua 5.1 words it */
    String reword(String text) {
        return hook.reword(text);
    }

    /** @return the line the last script was at when it stopped (Redis's {@code on @user_script:N}) */
    int lastLine() {
        return hook.lastLine();
    }

    private static LuaTable strings(byte[][] values) {
        LuaTable t = new LuaTable(values.length, 0);
        for (int i = 0; i < values.length; i++) {
            t.rawset(i + 1, LuaValue.valueOf(values[i]));
        }
        return t;
    }

    /** The {@code __newindex} of read-only tables. */
    private final class Refuse extends ThreeArgFunction {
        @Override
        public LuaValue call(LuaValue table, LuaValue key, LuaValue value) {
            throw new LuaError(LuaValue.valueOf(hook.where(1) + READONLY));
        }
    }

    /**
     * Lua's {@code error}, giving a string the {@code user_script:N: } position prefix Lua 5.1 gives
     * it (LuaJ writes positions its own way) and anything else as it is.
     */
    private final class ErrorFunction extends TwoArgFunction {
        @Override
        public LuaValue call(LuaValue message, LuaValue level) {
            int l = level.optint(1);
            if (message.isstring() && l > 0) {
                throw new LuaError(LuaValue.valueOf(hook.where(l) + message.tojstring()));
            }
            throw new LuaError(message);
        }
    }

    /** Lua 5.1's {@code loadstring}: the chunk runs with the scripts' read-only globals. */
    private final class LoadString extends VarArgFunction {
        @Override
        public Varargs invoke(Varargs a) {
            LuaString source = a.checkstring(1);
            String name = a.optjstring(2, source.tojstring());
            try {
                Prototype p = LuaCompiler.compile(source.m_bytes, source.m_offset, source.m_length, name);
                return new LuaClosure(p, env);
            } catch (LuaError e) {
                return LibFunction.varargsOf(LuaValue.NIL, LuaValue.valueOf(String.valueOf(e.getMessage())));
            }
        }
    }
}
