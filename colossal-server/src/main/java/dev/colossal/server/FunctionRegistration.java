package dev.colossal.server;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.ThreeArgFunction;
import org.luaj.vm2.lib.TwoArgFunction;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The {@code redis} a function library sees while it loads, as Redis 7.0 gives it: only
 * {@code register_function} (positional or named arguments, with Redis's checks and texts),
 * {@code log} and the version and log-level constants; any other name is an error. Collects what
 * the library registers.
 */
final class FunctionRegistration {

    /** One registered function: its name, the Lua function, its description (or null) and flags. */
    record Registered(String name, LuaFunction callback, String description, Set<String> flags) {
    }

    private static final Set<String> FLAGS = Set.of("no-writes", "allow-oom", "allow-stale", "no-cluster",
            "allow-cross-slot-keys");

    private final ScriptHook hook;
    private final List<Registered> registered = new ArrayList<>();
    /** The load is over: a function that kept {@code redis} from it calls register_function in vain. */
    private boolean closed;

    FunctionRegistration(ScriptHook hook) {
        this.hook = hook;
    }

    List<Registered> registered() {
        return registered;
    }

    /** Ends the load: register_function is refused from now on, as in Redis outside FUNCTION LOAD. */
    void close() {
        closed = true;
    }

    /** @return the read-only {@code redis} table of a loading library */
    LuaTable table() {
        LuaTable runtime = new RedisLib(hook).table();
        LuaTable real = new LuaTable();
        for (LuaValue k : runtime.keys()) {
            String name = k.tojstring();
            if (name.equals("log") || name.startsWith("LOG_") || name.startsWith("REDIS_VERSION")) {
                real.rawset(k, runtime.rawget(k));
            }
        }
        real.rawset("register_function", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                register(a);
                return LuaValue.NONE;
            }
        });
        LuaTable proxy = new LuaTable();
        LuaTable meta = new LuaTable();
        meta.rawset(LuaValue.INDEX, new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue self, LuaValue name) {
                LuaValue v = real.rawget(name);
                if (v.isnil()) {
                    throw new LuaError(LuaValue.valueOf(hook.where(1)
                            + "Script attempted to access nonexistent global variable '" + name.tojstring() + "'"));
                }
                return v;
            }
        });
        meta.rawset(LuaValue.NEWINDEX, new ThreeArgFunction() {
            @Override
            public LuaValue call(LuaValue t, LuaValue k, LuaValue v) {
                throw new LuaError(LuaValue.valueOf(hook.where(1) + LuaSandbox.READONLY));
            }
        });
        meta.rawset(LuaValue.METATABLE, LuaValue.FALSE);
        proxy.setmetatable(meta);
        return proxy;
    }

    private void register(Varargs a) {
        if (closed) {
            throw fail("redis.register_function can only be called on FUNCTION LOAD command");
        }
        String name = null;
        LuaFunction callback = null;
        String description = null;
        Set<String> flags = new LinkedHashSet<>();
        if (a.narg() < 1 || a.narg() > 2) {
            throw fail("wrong number of arguments to redis.register_function");
        }
        if (a.narg() == 1) {
            if (!a.arg1().istable()) {
                throw fail("calling redis.register_function with a single argument is only applicable to Lua table"
                        + " (representing named arguments).");
            }
            LuaTable named = (LuaTable) a.arg1();
            for (LuaValue k = named.next(LuaValue.NIL).arg1(); !k.isnil(); k = named.next(k).arg1()) {
                LuaValue v = named.rawget(k);
                if (!k.isstring()) {
                    throw fail("named argument key given to redis.register_function is not a string");
                }
                switch (k.tojstring()) {
                    case "function_name" -> {
                        if (!v.isstring()) {
                            throw fail("function_name argument given to redis.register_function must be a string");
                        }
                        name = v.tojstring();
                    }
                    case "description" -> {
                        if (!v.isstring()) {
                            throw fail("description argument given to redis.register_function must be a string");
                        }
                        description = v.tojstring();
                    }
                    case "callback" -> {
                        if (!v.isfunction()) {
                            throw fail("callback argument given to redis.register_function must be a function");
                        }
                        callback = (LuaFunction) v;
                    }
                    case "flags" -> {
                        if (!v.istable()) {
                            throw fail("flags argument to redis.register_function must be a table representing function flags");
                        }
                        LuaTable t = (LuaTable) v;
                        for (int i = 1; i <= t.length(); i++) {
                            LuaValue f = t.rawget(i);
                            if (!f.isstring() || !FLAGS.contains(f.tojstring())) {
                                throw fail("unknown flag given");
                            }
                            flags.add(f.tojstring());
                        }
                    }
                    default -> throw fail("unknown argument given to redis.register_function");
                }
            }
            if (name == null) {
                throw fail("redis.register_function must get a function name argument");
            }
            if (callback == null) {
                throw fail("redis.register_function must get a callback argument");
            }
        } else {
            if (!a.arg1().isstring()) {
                throw fail("first argument to redis.register_function must be a string");
            }
            if (!a.arg(2).isfunction()) {
                throw fail("second argument to redis.register_function must be a function");
            }
            name = a.arg1().tojstring();
            callback = (LuaFunction) a.arg(2);
        }
        if (!FunctionLibraries.validName(name)) {
            // Redis 7.0 says "Library" here too
            throw fail(FunctionLibraries.BAD_NAME);
        }
        for (Registered r : registered) {
            if (r.name().equals(name)) {
                throw fail("Function already exists in the library");
            }
        }
        registered.add(new Registered(name, callback, description, flags));
    }

    private static LuaError fail(String text) {
        return new LuaError(LuaReplies.errorTable("ERR " + text));
    }
}
