package dev.colossal.cli;

import dev.colossal.server.MemorySize;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The settings file of {@code colossal serve --config FILE}, in the style of redis.conf: one
 * {@code key value} per line, {@code #} starts a comment line, a value may be in double quotes. The
 * keys are the names of the flags without their dashes; a flag given on the command line wins over
 * the file. Sizes are read as Redis reads them ({@link MemorySize}: {@code 100m} is 100,000,000
 * bytes, {@code 100mb} 104,857,600). Unknown keys, repeated keys and malformed values are errors
 * naming the file and line.
 */
final class ServeConfigFile {

    /** The settings a file may hold: the {@code serve} flags without {@code --}. */
    static final List<String> KEYS = List.of("bind", "port", "http-port", "data", "requirepass", "maxclients",
            "proto-max-bulk-len", "timeout", "io-threads", "busy-poll", "maxmemory", "maxmemory-policy", "databases",
            "tls-port", "tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-ca-cert-file", "tls-ca-cert-dir",
            "tls-auth-clients", "tls-protocols", "tls-ciphers", "tls-ciphersuites", "aclfile", "replicaof", "masterauth",
            "masteruser");

    static final ServeConfigFile NONE = new ServeConfigFile(Path.of("(none)"), Map.of());

    private record Setting(String value, int line) {}

    private final Path file;
    private final Map<String, Setting> settings;

    private ServeConfigFile(Path file, Map<String, Setting> settings) {
        this.file = file;
        this.settings = settings;
    }

    /**
     * @throws IOException              if the file cannot be read
     * @throws IllegalArgumentException naming the file and line of an unknown, repeated or malformed setting
     */
    static ServeConfigFile read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("config file " + file + " does not exist or is not a file");
        }
        Map<String, Setting> settings = new TreeMap<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            int no = i + 1;
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] kv = line.split("\\s+", 2);
            String key = kv[0].toLowerCase(Locale.ROOT);
            if (!KEYS.contains(key)) {
                throw new IllegalArgumentException(file + ":" + no + ": unknown setting '" + kv[0] + "'; the settings are "
                        + String.join(", ", KEYS));
            }
            if (kv.length < 2) {
                throw new IllegalArgumentException(file + ":" + no + ": setting '" + key + "' has no value; write '"
                        + key + " VALUE'");
            }
            Setting before = settings.put(key, new Setting(unquote(kv[1], file, no), no));
            if (before != null) {
                throw new IllegalArgumentException(file + ":" + no + ": '" + key + "' is set again (first on line "
                        + before.line + "); keep one");
            }
        }
        return new ServeConfigFile(file, settings);
    }

    private static String unquote(String v, Path file, int line) {
        if (!v.startsWith("\"")) {
            return v;
        }
        if (v.length() < 2 || !v.endsWith("\"")) {
            throw new IllegalArgumentException(file + ":" + line + ": unterminated quote in " + v);
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
        return new IllegalArgumentException(file + ":" + s.line + ": " + key + "=" + s.value + " is not " + what);
    }
}
