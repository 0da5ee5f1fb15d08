package dev.colossal.server;

import dev.colossal.rdb.FunctionsPayload;
import dev.colossal.rdb.RdbFormatException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * FUNCTION (LOAD, LIST, DELETE, FLUSH, DUMP, RESTORE, STATS, KILL, HELP), FCALL and FCALL_RO, with
 * Redis 7.0's replies and error texts. The libraries are {@link FunctionLibraries}'; a function runs
 * as a script does ({@link ScriptCommands#runAtomically}), its keys and arguments given to it as
 * the two tables Redis passes.
 */
final class FunctionCommands {

    private static final List<String> HELP = List.of(
            "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "LOAD [REPLACE] <FUNCTION CODE>",
            "    Create a new library with the given library name and code.",
            "DELETE <LIBRARY NAME>",
            "    Delete the given library.",
            "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
            "    Return general information on all the libraries:",
            "    * Library name",
            "    * The engine used to run the Library",
            "    * Library description",
            "    * Functions list",
            "    * Library code (if WITHCODE is given)",
            "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
            "STATS",
            "    Return information about the current function running:",
            "    * Function name",
            "    * Command used to run the function",
            "    * Duration in MS that the function is running",
            "    If no function is running, return nil",
            "    In addition, returns a list of available engines.",
            "KILL",
            "    Kill the current running function.",
            "FLUSH [ASYNC|SYNC]",
            "    Delete all the libraries.",
            "    When called without the optional mode argument, the behavior is determined by the",
            "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
            "    * ASYNC: Asynchronously flush the libraries.",
            "    * SYNC: Synchronously flush the libraries.",
            "DUMP",
            "    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
            "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
            "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
            "    control how to handle existing libraries (default APPEND):",
            "    * FLUSH: delete all existing libraries.",
            "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
            "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
            "      libraries with the new libraries (notice that even on this option there is a chance of failure",
            "      in case of functions name collision with another library).",
            "HELP",
            "    Prints this help."
);

    private final ScriptCommands scripts;
    private final FunctionLibraries libraries;

    FunctionCommands(ScriptCommands scripts, FunctionLibraries libraries) {
        this.scripts = scripts;
        this.libraries = libraries;
    }

    void register(CommandTable t) {
        t.add("function", -2, List.of("noscript"), 0, 0, 0, this::function);
        List<String> flags = List.of("noscript", "stale", "skip_monitor", "no_mandatory_keys", "movablekeys");
        t.add("fcall", -3, flags, 0, 0, 0, (c, a, r) -> fcall(c, a, r, false));
        t.add("fcall_ro", -3, List.of("readonly", "noscript", "stale", "skip_monitor", "no_mandatory_keys", "movablekeys"),
                0, 0, 0, (c, a, r) -> fcall(c, a, r, true));
    }

    private void fcall(Client c, byte[][] a, Reply r, boolean readOnly) {
        String name = new String(a[1], StandardCharsets.ISO_8859_1);
        FunctionLibraries.Library lib = libraries.ofFunction(name);
        if (lib == null) {
            r.error("ERR Function not found");
            return;
        }
        OptionalLong parsed = Args.toLong(a[2]);
        if (parsed.isEmpty()) {
            r.error("ERR Bad number of keys provided");
            return;
        }
        long numKeys = parsed.getAsLong();
        if (numKeys > a.length - 3) {
            r.error("ERR Number of keys can't be greater than number of args");
            return;
        }
        if (numKeys < 0) {
            r.error("ERR Number of keys can't be negative");
            return;
        }
        FunctionLibraries.Function f = FunctionLibraries.function(lib, name);
        boolean noWrites = f.noWrites();
        if (scripts.refusedForMemory(noWrites, f.allowOom())) {
            r.error(OomRefusal.ERROR);
            return;
        }
        if (readOnly && !noWrites) {
            r.error("ERR Can not execute a script with write flag using *_ro command.");
            return;
        }
        byte[][] keys = Arrays.copyOfRange(a, 3, 3 + (int) numKeys);
        byte[][] argv = Arrays.copyOfRange(a, 3 + (int) numKeys, a.length);
        scripts.runAtomically(c, keys, f.name(), readOnly || noWrites, f.allowOom(), a, r,
                (lua, run) -> lua.call(run, lua.function(run, lib, f.name()), keys, argv));
    }

    private void function(Client c, byte[][] a, Reply r) {
        byte[] sub = a[1];
        String lower = Args.lower(sub);
        switch (lower) {
            case "load" -> {
                if (a.length < 3) {
                    r.error(Errors.arity("function|load"));
                    return;
                }
                load(c, a, r);
            }
            case "list" -> list(a, r);
            case "delete" -> {
                if (a.length != 3) {
                    r.error(Errors.arity("function|delete"));
                } else if (!libraries.delete(new String(a[2], StandardCharsets.ISO_8859_1))) {
                    r.error("ERR Library not found");
                } else {
                    r.ok();
                }
            }
            case "flush" -> {
                if (a.length > 3) {
                    r.error("ERR unknown subcommand or wrong number of arguments for '" + Errors.text(sub)
                            + "'. Try FUNCTION HELP.");
                } else if (a.length == 3 && !Args.is(a[2], "SYNC") && !Args.is(a[2], "ASYNC")) {
                    r.error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
                } else {
                    libraries.flush();
                    r.ok();
                }
            }
            case "dump" -> {
                if (a.length != 2) {
                    r.error(Errors.arity("function|dump"));
                } else {
                    r.bulk(libraries.dump());
                }
            }
            case "restore" -> {
                if (a.length < 3) {
                    r.error(Errors.arity("function|restore"));
                } else {
                    restore(c, a, r);
                }
            }
            case "stats" -> {
                if (a.length != 2) {
                    r.error(Errors.arity("function|stats"));
                } else {
                    stats(r);
                }
            }
            case "kill" -> {
                if (a.length != 2) {
                    r.error(Errors.arity("function|kill"));
                } else {
                    scripts.kill(r);
                }
            }
            case "help" -> {
                if (a.length != 2) {
                    r.error(Errors.arity("function|help"));
                } else {
                    r.array(HELP.size());
                    HELP.forEach(r::simple);
                }
            }
            default -> r.error(Errors.unknownSubcommand(sub, "FUNCTION"));
        }
    }

    /** FUNCTION LOAD [REPLACE] code: the options are every argument before the last, which is the code. */
    private void load(Client c, byte[][] a, Reply r) {
        boolean replace = false;
        for (int i = 2; i < a.length - 1; i++) {
            if (!Args.is(a[i], "REPLACE")) {
                r.error("ERR Unknown option given: " + Errors.text(a[i]));
                return;
            }
            replace = true;
        }
        FunctionLibraries.Library lib = libraries.prepare(a[a.length - 1], loader(c));
        r.bulk(libraries.load(lib, replace));
    }

    private static ScriptRun loader(Client c) {
        return new ScriptRun(c, "", true, null);
    }

    /** FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE], each at most once. */
    private void list(byte[][] a, Reply r) {
        boolean withCode = false;
        byte[] pattern = null;
        for (int i = 2; i < a.length; i++) {
            if (!withCode && Args.is(a[i], "WITHCODE")) {
                withCode = true;
            } else if (pattern == null && Args.is(a[i], "LIBRARYNAME")) {
                if (i >= a.length - 1) {
                    r.error("ERR library name argument was not given");
                    return;
                }
                pattern = a[++i];
            } else {
                r.error("ERR Unknown argument " + Errors.text(a[i]));
                return;
            }
        }
        List<FunctionLibraries.Library> shown = new ArrayList<>();
        for (FunctionLibraries.Library lib : libraries.all()) {
            if (pattern == null || Glob.matchesIgnoringCase(pattern, lib.name.getBytes(StandardCharsets.ISO_8859_1))) {
                shown.add(lib);
            }
        }
        r.array(shown.size());
        for (FunctionLibraries.Library lib : shown) {
            r.map(withCode ? 4 : 3);
            r.bulk("library_name");
            r.bulk(lib.name);
            r.bulk("engine");
            r.bulk("LUA");
            r.bulk("functions");
            r.array(lib.functions.size());
            for (FunctionLibraries.Function f : lib.functions) {
                r.map(3);
                r.bulk("name");
                r.bulk(f.name());
                r.bulk("description");
                if (f.description() == null) {
                    r.nullBulk();
                } else {
                    r.bulk(f.description());
                }
                r.bulk("flags");
                r.set(f.flags().size());
                f.flags().forEach(r::simple); // status strings, as Redis writes them
            }
            if (withCode) {
                r.bulk("library_code");
                r.bulk(lib.code);
            }
        }
    }

    /** FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]. */
    private void restore(Client c, byte[][] a, Reply r) {
        boolean flush = false;
        boolean replace = false;
        if (a.length > 4) {
            r.error(Errors.subcommandSyntax(a[1], "FUNCTION"));
            return;
        }
        if (a.length == 4) {
            flush = Args.is(a[3], "FLUSH");
            replace = Args.is(a[3], "REPLACE");
            if (!flush && !replace && !Args.is(a[3], "APPEND")) {
                r.error("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
                return;
            }
        }
        List<byte[]> codes;
        try {
            codes = FunctionsPayload.codes(a[2]);
        } catch (RdbFormatException e) {
            r.error("ERR DUMP payload version or checksum are wrong");
            return;
        }
        List<FunctionLibraries.Library> loaded = new ArrayList<>();
        for (byte[] code : codes) {
            loaded.add(libraries.prepare(code, loader(c)));
        }
        libraries.restore(loaded, flush, replace);
        r.ok();
    }

    /** FUNCTION STATS: the function running (or nil) and the one engine's counts. */
    private void stats(Reply r) {
        List<FunctionLibraries.Library> all = libraries.all();
        ScriptRun run = scripts.running();
        r.map(2);
        r.bulk("running_script");
        byte[][] command = run == null ? null : run.command;
        if (command == null) {
            r.nullBulk();
        } else {
            r.map(3);
            r.bulk("name");
            r.bulk(run.sha);
            r.bulk("command");
            r.array(command.length);
            for (byte[] arg : command) {
                r.bulk(arg);
            }
            r.bulk("duration_ms");
            r.integer(run.runningMillis());
        }
        r.bulk("engines");
        r.map(1);
        r.bulk("LUA");
        r.map(2);
        r.bulk("libraries_count");
        r.integer(all.size());
        r.bulk("functions_count");
        r.integer(all.stream().mapToInt(l -> l.functions.size()).sum());
    }
}
