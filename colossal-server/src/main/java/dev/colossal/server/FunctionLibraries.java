package dev.colossal.server;

import dev.colossal.rdb.FunctionsPayload;
import dev.colossal.rdb.RdbFormatException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.Prototype;

/**
 * The function libraries of Redis 7.0's FUNCTION LOAD: each library's code, compiled once, and the
 * functions it registered, found by name for FCALL. A library's code starts with its metadata line
 * ({@code #!lua name=mylib}) and runs once at load, with only {@code redis.register_function} to
 * call ({@link FunctionRegistration}); each event loop runs it again on its own Lua when it first
 * calls one of its functions ({@link LuaSandbox#function}).
 *
 * <p>Libraries persist as Redis keeps them in an RDB: the data directory's {@code functions.rdb}
 * holds a FUNCTION DUMP payload ({@link FunctionsPayload}), rewritten (to a temporary file, forced,
 * then renamed over) after every change, and loaded at start.
 */
final class FunctionLibraries {

    static final String BAD_NAME = "Library names can only contain letters, numbers, or underscores(_) and must be at"
            + " least one character long";
    /** Redis's time limit on a library's load run. */
    static final long LOAD_MILLIS = 500;
    static final String FILE = "functions.rdb";

    /** A loaded library: compared by identity (each load is a new one, which loops compile anew). */
    static final class Library {
        final String name;
        final byte[] code;
        final Prototype compiled;
        final List<Function> functions;

        Library(String name, byte[] code, Prototype compiled, List<Function> functions) {
            this.name = name;
            this.code = code;
            this.compiled = compiled;
            this.functions = functions;
        }

        Prototype code() {
            return compiled;
        }
    }

    /** A registered function: its name, description (or null) and flags. */
    record Function(String name, String description, Set<String> flags) {
        boolean noWrites() {
            return flags.contains("no-writes");
        }

        boolean allowOom() {
            return flags.contains("allow-oom");
        }
    }

    private final Map<String, Library> libraries = new LinkedHashMap<>();
    /** Libraries by the functions they registered, each under its name in lower case ({@link #key}). */
    private final Map<String, Library> byFunction = new HashMap<>();
    /** Where they persist, or null for none (tests of the registry alone). */
    private final Path file;

    private FunctionLibraries(Path file) {
        this.file = file;
    }

    /**
     * Opens the libraries a data directory holds, loading each as FUNCTION LOAD would.
     *
     * @throws UncheckedIOException naming the file if it cannot be read or holds what does not load
     */
    static FunctionLibraries open(Path dataDir) {
        FunctionLibraries f = new FunctionLibraries(dataDir.resolve(FILE));
        if (Files.exists(f.file)) {
            try {
                for (byte[] code : FunctionsPayload.codes(Files.readAllBytes(f.file))) {
                    f.install(f.prepare(code, loader()), false, false);
                }
            } catch (IOException | RdbFormatException | ReplyException e) {
                throw new UncheckedIOException(new IOException("function libraries file=" + f.file.toAbsolutePath()
                        + " cannot be loaded: " + e.getMessage() + "; move it away to start without its libraries", e));
            }
        }
        return f;
    }

    /**
     * Loads a library a dump holds (an RDB file's, a master's full sync), replacing one of the same name.
     *
     * @return the library's name
     * @throws ReplyException with Redis's error if it does not load
     */
    String restore(byte[] code) {
        return load(prepare(code, loader()), true);
    }

    private static ScriptRun loader() {
        return new ScriptRun(new Client(0, "", 0, true), "", true, null);
    }

    /** @return whether {@code name} is a valid library or function name: letters, digits, underscores, at least one */
    static boolean validName(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_')) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads {@code code}'s metadata, compiles it and runs it on this thread's Lua to learn its
     * functions; installs nothing.
     *
     * @throws ReplyException with Redis's error if any of that fails
     */
    Library prepare(byte[] code, ScriptRun run) {
        String name = libraryName(code);
        Prototype compiled;
        try {
            compiled = LuaSandbox.compileLibrary(code);
        } catch (LuaError e) {
            throw new ReplyException("ERR Error compiling function: " + e.getMessage());
        }
        List<FunctionRegistration.Registered> registered;
        run.limit(LOAD_MILLIS);
        try {
            registered = LuaSandbox.ofThisThread().register(run, compiled);
        } catch (ScriptHook.Killed timeout) {
            throw new ReplyException("ERR Error registering functions: ERR FUNCTION LOAD timeout");
        } catch (LuaError e) {
            throw new ReplyException("ERR Error registering functions: " + ScriptCommands.errorText(e));
        }
        if (registered.isEmpty()) {
            throw new ReplyException("ERR No functions registered");
        }
        List<Function> functions = new ArrayList<>();
        for (FunctionRegistration.Registered r : registered) {
            functions.add(new Function(r.name(), r.description(), r.flags()));
        }
        return new Library(name, code, compiled, List.copyOf(functions));
    }

    /** The library name of the metadata line, as Redis 7.0 reads it. */
    private static String libraryName(byte[] code) {
        String text = new String(code, StandardCharsets.ISO_8859_1);
        if (!text.startsWith("#!")) {
            throw new ReplyException("ERR Missing library metadata");
        }
        int eol = text.indexOf('\n');
        if (eol < 0) {
            throw new ReplyException("ERR Invalid library metadata");
        }
        String[] parts = text.substring(2, eol).split(" ");
        if (!parts[0].equalsIgnoreCase("lua")) {
            throw new ReplyException("ERR Engine '" + parts[0] + "' not found");
        }
        String name = null;
        for (int i = 1; i < parts.length; i++) {
            if (parts[i].isEmpty()) {
                continue;
            }
            if (!parts[i].startsWith("name=")) {
                throw new ReplyException("ERR Invalid metadata value given: " + parts[i]);
            }
            name = parts[i].substring(5);
        }
        if (name == null) {
            throw new ReplyException("ERR Library name was not given");
        }
        if (!validName(name)) {
            throw new ReplyException("ERR " + BAD_NAME);
        }
        return name;
    }

    /**
     * Adds {@code lib}, replacing a library of its name if {@code replace}, and persists them.
     *
     * @return its name
     * @throws ReplyException if its name is taken and not to be replaced, or another library has one of its functions
     */
    synchronized String load(Library lib, boolean replace) {
        install(lib, replace, false);
        persist();
        return lib.name;
    }

    /** @param restoring FUNCTION RESTORE's: its clash error names the library unquoted, as Redis's does */
    private void install(Library lib, boolean replace, boolean restoring) {
        Library old = libraries.get(lib.name);
        if (old != null && !replace) {
            throw new ReplyException(restoring ? "ERR Library " + lib.name + " already exists"
                    : "ERR Library '" + lib.name + "' already exists");
        }
        for (Function f : lib.functions) {
            Library owner = byFunction.get(key(f.name()));
            if (owner != null && owner != old) {
                throw new ReplyException("ERR Function " + f.name() + " already exists");
            }
        }
        if (old != null) {
            old.functions.forEach(f -> byFunction.remove(key(f.name())));
        }
        libraries.put(lib.name, lib);
        lib.functions.forEach(f -> byFunction.put(key(f.name()), lib));
    }

    /** @return the library that registered function {@code name}, or null */
    synchronized Library ofFunction(String name) {
        return byFunction.get(key(name));
    }

    /** @return the key of function {@code name}: FCALL finds a function in any case, as Redis does */
    private static String key(String name) {
        return name.toLowerCase(java.util.Locale.ROOT);
    }

    /** @return the function {@code name} as its library registered it */
    static Function function(Library lib, String name) {
        for (Function f : lib.functions) {
            if (f.name().equalsIgnoreCase(name)) {
                return f;
            }
        }
        throw new IllegalStateException("library " + lib.name + " has no function " + name);
    }

    /** @return the functions registered, of every library (INFO's {@code number_of_functions}) */
    synchronized int functionCount() {
        return byFunction.size();
    }

    /** @return the libraries, in the order they were loaded */
    synchronized List<Library> all() {
        return List.copyOf(libraries.values());
    }

    /** FUNCTION DELETE. @return whether there was one of that name */
    synchronized boolean delete(String name) {
        Library lib = libraries.remove(name);
        if (lib == null) {
            return false;
        }
        lib.functions.forEach(f -> byFunction.remove(key(f.name())));
        persist();
        return true;
    }

    /** FUNCTION FLUSH. */
    synchronized void flush() {
        libraries.clear();
        byFunction.clear();
        persist();
    }

    /** @return FUNCTION DUMP's payload */
    synchronized byte[] dump() {
        return FunctionsPayload.of(libraries.values().stream().map(l -> l.code).toList());
    }

    /**
     * FUNCTION RESTORE of libraries already prepared: with {@code flush} every library goes first;
     * else with {@code replace} a library of the same name is replaced, and without it any clash is
     * refused before anything changes.
     */
    synchronized void restore(List<Library> loaded, boolean flush, boolean replace) {
        Map<String, Library> keptLibraries = new LinkedHashMap<>(libraries);
        Map<String, Library> keptFunctions = new HashMap<>(byFunction);
        if (flush) {
            libraries.clear();
            byFunction.clear();
        }
        try {
            for (Library lib : loaded) {
                install(lib, replace, true);
            }
        } catch (ReplyException e) {
            libraries.clear();
            libraries.putAll(keptLibraries);
            byFunction.clear();
            byFunction.putAll(keptFunctions);
            throw e;
        }
        persist();
    }

    private void persist() {
        if (file == null) {
            return;
        }
        Path tmp = file.resolveSibling(FILE + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(FunctionsPayload.of(libraries.values().stream().map(l -> l.code).toList())));
            ch.force(true);
        } catch (IOException e) {
            throw new ReplyException("ERR function libraries could not be saved to " + tmp.toAbsolutePath() + ": "
                    + e.getMessage() + "; free disk space and retry");
        }
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new ReplyException("ERR function libraries could not be saved to " + file.toAbsolutePath() + ": "
                    + e.getMessage());
        }
    }
}
