package dev.colossal.cli;

import dev.colossal.server.MemorySize;
import dev.colossal.server.ServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SequencedMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * The settings file of {@code colossal serve --config FILE}, in the style of redis.conf: one
 * {@code key value} per line, {@code #} starts a comment line, a value may be in double quotes. The
 * keys are the names of the flags without their dashes; a flag given on the command line wins over
 * the file. Sizes are read as Redis reads them ({@link MemorySize}: {@code 100m} is 100,000,000
 * bytes, {@code 100mb} 104,857,600). A key repeated in one file and a malformed value are errors
 * naming the file and line; of two lines in different files ({@code include}), the later wins.
 *
 * <p>A redis.conf serves as it is: {@code include FILE} reads another file there, {@code bind}
 * takes the first of several addresses (Redis's {@code -} and {@code *} understood), and the other
 * settings Redis 7.0 knows ({@code redis-config-names.txt}) are kept, in order, for the server to
 * take by CONFIG SET once it runs ({@link #redisSettings}): what it cannot take is then said and
 * passed over. Only a key neither this server nor Redis knows (a misspelling) is an error. Two
 * Redis directives stop the start instead, as passing over them would leave a server without
 * commands its users count on: {@code rename-command}, {@code loadmodule}. {@code user} lines
 * define ACL users, as in Redis ({@link #users}).
 */
final class ServeConfigFile {

    /** The settings a file may hold: the {@code serve} flags without {@code --}. */
    static final List<String> KEYS = List.of("bind", "port", "http-port", "data", "requirepass", "maxclients",
            "proto-max-bulk-len", "timeout", "io-threads", "busy-poll", "maxmemory", "maxmemory-policy", "databases",
            "tls-port", "tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-ca-cert-file", "tls-ca-cert-dir",
            "tls-auth-clients", "tls-protocols", "tls-ciphers", "tls-ciphersuites", "aclfile", "replicaof", "masterauth",
            "masteruser", "unixsocket", "unixsocketperm");

    /** Redis 7.0's configuration names and file directives. */
    private static final Set<String> REDIS_NAMES = redisNames();
    /** Files that include one another this deep are taken for a loop. */
    private static final int MAX_INCLUDE_DEPTH = 16;

    static final ServeConfigFile NONE = new ServeConfigFile(Map.of(), List.of(), List.of(), new LinkedHashMap<>());

    private record Setting(String value, Path file, int line) {}

    /**
     * A redis.conf setting that is not one of {@link #KEYS}, for the server to take by CONFIG SET.
     *
     * @param where {@code FILE:LINE}, for what is said about it
     */
    record RedisSetting(String key, String value, String where) {}

    private final Map<String, Setting> settings;
    private final List<RedisSetting> redisSettings;
    private final List<String> notes;
    private final SequencedMap<String, List<String>> users;

    private ServeConfigFile(Map<String, Setting> settings, List<RedisSetting> redisSettings, List<String> notes,
                            SequencedMap<String, List<String>> users) {
        this.settings = settings;
        this.redisSettings = redisSettings;
        this.notes = notes;
        this.users = users;
    }

    /**
     * @throws IOException              if the file cannot be read
     * @throws IllegalArgumentException naming the file and line of an unknown, repeated or malformed setting
     */
    static ServeConfigFile read(Path file) throws IOException {
        ServeConfigFile f = new ServeConfigFile(new TreeMap<>(), new ArrayList<>(), new ArrayList<>(), new LinkedHashMap<>());
        f.readLines(file, 0);
        return f;
    }

    private void readLines(Path from, int depth) throws IOException {
        if (!Files.isRegularFile(from)) {
            throw new IllegalArgumentException("config file " + from + " does not exist or is not a file");
        }
        List<String> lines = Files.readAllLines(from, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            String where = from + ":" + (i + 1);
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] kv = line.split("\\s+", 2);
            String key = kv[0].toLowerCase(Locale.ROOT);
            key = key.equals("slaveof") ? "replicaof" : key;   // Redis's older name, in older redis.conf files
            if (!KEYS.contains(key) && !REDIS_NAMES.contains(key)) {
                throw new IllegalArgumentException(where + ": unknown setting '" + kv[0] + "'; the settings are "
                        + String.join(", ", KEYS) + ", and those of a redis.conf");
            }
            if (kv.length < 2) {
                throw new IllegalArgumentException(where + ": setting '" + key + "' has no value; write '"
                        + key + " VALUE'");
            }
            String value = unquote(kv[1], where);
            switch (key) {
                case "include" -> {
                    if (depth >= MAX_INCLUDE_DEPTH) {
                        throw new IllegalArgumentException(where + ": include " + value + " is " + MAX_INCLUDE_DEPTH
                                + " files deep: do the files include one another?");
                    }
                    readLines(Path.of(value), depth + 1);
                }
                case "user" -> users.put(where, ConfigWords.split(kv[1], where));
                case "rename-command" -> throw new IllegalArgumentException(where + ": rename-command is not supported:"
                        + " to keep clients from a command, deny it by ACL, e.g. in an aclfile: user default on nopass"
                        + " ~* &* +@all -" + value.split("\\s+")[0].toLowerCase(Locale.ROOT));
                case "loadmodule" -> throw new IllegalArgumentException(where + ": loadmodule: this server loads no"
                        + " Redis modules; remove the line (clients using the module's commands will get unknown command)");
                default -> {
                    if (key.equals("save")) {
                        value = savePoints(value);
                    }
                    if (!KEYS.contains(key)) {
                        redisSettings.add(new RedisSetting(key, value, where));
                        continue;
                    }
                    if (key.equals("bind")) {
                        noteFirstAddress(value, where);
                    }
                    Setting before = settings.put(key, new Setting(value, from, i + 1));
                    // A later line of another file wins (the main file's after an include: CONFIG REWRITE
                    // adds what changed there), as Redis reads an include in place; twice in one file is a slip
                    if (before != null && before.file.equals(from)) {
                        throw new IllegalArgumentException(where + ": '" + key + "' is set again (first on line "
                                + before.line + "); keep one");
                    }
                }
            }
        }
    }

    /**
     * @return the save points a {@code save} line leaves: Redis adds each line's points to those of the
     *     lines before it ({@code save 900 1}, {@code save 300 10} on two lines are both kept), and
     *     {@code save ""} clears them; the earlier lines' settings are dropped, as this one holds them all
     */
    private String savePoints(String value) {
        for (int i = redisSettings.size() - 1; i >= 0; i--) {
            RedisSetting before = redisSettings.get(i);
            if (before.key().equals("save")) {
                redisSettings.remove(i);
                return before.value().isEmpty() || value.isEmpty() ? value : before.value() + " " + value;
            }
        }
        return value;
    }

    /**
     * Redis binds every address a {@code bind} line lists ({@code -} before one: if it exists,
     * {@code *}: all of that family); this server listens on one, the first
     * ({@link ServerConfig#listenAddress()}), which is said when there are more.
     */
    private void noteFirstAddress(String value, String where) {
        String[] all = value.strip().split("\\s+");
        if (all.length > 1) {
            String first = ServerConfig.listenAddress(value);
            notes.add(where + ": bind " + value + ": listening on " + first + " only (one address a server here)");
        }
    }

    /** @return the file's redis.conf settings that are not this server's flags, in the file's order */
    List<RedisSetting> redisSettings() {
        return redisSettings;
    }

    /**
     * @return the words after {@code user} of each {@code user} line (an included file's too), quotes
     *     read as Redis reads them ({@link ConfigWords}), by {@code FILE:LINE}, in the order the start
     *     reads them: the users it defines, as redis-server does when no ACL file is set
     */
    SequencedMap<String, List<String>> users() {
        return users;
    }

    /** @return what reading the file changed or passed over, a line each, for the log at start */
    List<String> notes() {
        return notes;
    }

    private static Set<String> redisNames() {
        try (InputStream in = ServeConfigFile.class.getResourceAsStream("redis-config-names.txt")) {
            if (in == null) {
                throw new IllegalStateException("redis-config-names.txt is missing from the jar");
            }
            Set<String> names = new HashSet<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    names.add(line.strip());
                }
            }
            return names;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String unquote(String v, String where) {
        if (!v.startsWith("\"")) {
            return v;
        }
        if (v.length() < 2 || !v.endsWith("\"")) {
            throw new IllegalArgumentException(where + ": unterminated quote in " + v);
        }
        return v.substring(1, v.length() - 1);
    }

    String string(String key, String fallback) {
        Setting s = settings.get(key);
        return s == null ? fallback : s.value;
    }

    Path path(String key, Path fallback) {
        Setting s = settings.get(key);
        return s == null ? fallback : Path.of(s.value);
    }

    int integer(String key, int fallback) {
        Setting s = settings.get(key);
        if (s == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(s.value);
        } catch (NumberFormatException e) {
            throw bad(key, s, "an integer");
        }
    }

    long size(String key, long fallback) {
        Setting s = settings.get(key);
        if (s == null) {
            return fallback;
        }
        try {
            return MemorySize.parse(s.value);
        } catch (IllegalArgumentException e) {
            throw bad(key, s, "a size such as " + MemorySize.EXAMPLES);
        }
    }

    private IllegalArgumentException bad(String key, Setting s, String what) {
        return new IllegalArgumentException(s.file + ":" + s.line + ": " + key + "=" + s.value + " is not " + what);
    }
}
