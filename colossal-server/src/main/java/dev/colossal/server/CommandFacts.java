package dev.colossal.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What Redis 7.0.15's COMMAND INFO says of each of its commands and subcommands, read from the
 * resource {@code redis-commands.txt} (facts queried from a running redis-server): arity, flags,
 * legacy key positions, ACL categories, tips and key specs. It is the one source of key specs:
 * COMMAND INFO shows them, {@link KeyFinder} finds keys with them for COMMAND GETKEYS and ACL.
 */
final class CommandFacts {

    /**
     * One command or subcommand ({@code config|get}).
     *
     * @param categories ACL categories without their '@'
     * @param subcommands the full names of a container's subcommands, by name; none for others
     */
    record Entry(String name, int arity, List<String> flags, int firstKey, int lastKey, int step,
                 List<String> categories, List<String> tips, List<KeySpec> keySpecs, List<String> subcommands) {

        boolean has(String flag) {
            return flags.contains(flag);
        }

        boolean arityOk(int argc) {
            return arity > 0 ? argc == arity : argc >= -arity;
        }
    }

    static final CommandFacts REDIS = load("redis-commands.txt");

    /** Every entry by full name, in the file's order (each container before its subcommands). */
    private final Map<String, Entry> byName;

    private CommandFacts(Map<String, Entry> byName) {
        this.byName = byName;
    }

    /** @return the command or subcommand of that lower-case name ({@code config|get}), or null */
    Entry get(String name) {
        return byName.get(name);
    }

    /** @return every command and subcommand, each container before its subcommands */
    Iterable<Entry> all() {
        return byName.values();
    }

    private static CommandFacts load(String resource) {
        try (InputStream in = CommandFacts.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the server's jar");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            Map<String, String[]> lines = new LinkedHashMap<>();
            Map<String, List<String>> children = new LinkedHashMap<>();
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] parts = line.split(" \\| ");
                String name = parts[0].substring(0, parts[0].indexOf(' '));
                lines.put(name, parts);
                int bar = name.indexOf('|');
                if (bar > 0) {
                    children.computeIfAbsent(name.substring(0, bar), k -> new ArrayList<>()).add(name);
                }
            }
            Map<String, Entry> byName = new LinkedHashMap<>();
            lines.forEach((name, parts) -> byName.put(name, parse(parts, children.getOrDefault(name, List.of()))));
            return new CommandFacts(byName);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Entry parse(String[] parts, List<String> subcommands) {
        String[] f = parts[0].split(" ");
        if (f.length != 6) {
            throw new IllegalArgumentException("redis-commands.txt: a command needs 6 fields: line=" + parts[0]);
        }
        String[] keys = f[3].split(",");
        List<KeySpec> specs = new ArrayList<>();
        for (int i = 1; i < parts.length; i++) {
            specs.add(KeySpec.parse(parts[i]));
        }
        return new Entry(f[0], Integer.parseInt(f[1]), list(f[2]), Integer.parseInt(keys[0]), Integer.parseInt(keys[1]),
                Integer.parseInt(keys[2]), list(f[4]), list(f[5]), List.copyOf(specs), List.copyOf(subcommands));
    }

    private static List<String> list(String commas) {
        return commas.equals("-") ? List.of() : List.copyOf(Arrays.asList(commas.split(",")));
    }

    /**
     * An entry for a command of this server's own that Redis lacks: its key positions as one key
     * spec (read-only commands read their keys, others may change them), no categories or tips.
     */
    static Entry of(CommandSpec s) {
        List<KeySpec> specs = List.of();
        if (s.firstKey() > 0) {
            boolean readOnly = s.readOnly();
            int flags = readOnly ? KeySpec.RO | KeySpec.ACCESS : KeySpec.RW | KeySpec.ACCESS | KeySpec.UPDATE;
            int last = s.lastKey() < 0 ? s.lastKey() : s.lastKey() - s.firstKey();
            specs = List.of(new KeySpec(flags, KeySpec.Begin.INDEX, s.firstKey(), null, KeySpec.Find.RANGE, last,
                    Math.max(1, s.step()), 0, null));
        }
        return new Entry(s.name(), s.arity(), s.flags(), s.firstKey(), s.lastKey(), s.step(), List.of(), List.of(),
                specs, List.of());
    }
}
