package dev.colossal.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Redis 7.0's commands as ACL sees them: every command and subcommand ({@code config|get}) with a
 * number (its bit in a user's command set), its categories and its key specs, read from the
 * resource {@code acl-commands.txt} (what redis-server 7.0.15's COMMAND says of them).
 *
 * <p>ACL works on Redis's whole table, not only on the commands this server has: ACL LIST
 * describes a user by counting, per category, the commands allowed and denied, and must count
 * what Redis counts to write what Redis writes.
 */
final class AclCatalog {

    /** Redis 7.0's categories, in ACL CAT's order: a command's categories are bits in this order. */
    static final List<String> CATEGORIES = List.of("keyspace", "read", "write", "set", "sortedset", "list", "hash",
            "string", "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking",
            "dangerous", "connection", "transaction", "scripting");

    /** One command or subcommand. */
    record Entry(int id, String name, long categories, int parent, List<Integer> children, List<AclKeySpec> keys) {
    }

    static final AclCatalog REDIS = load();

    private final List<Entry> entries;
    private final Map<String, Entry> byName;
    /** The top-level commands by name, in name order (the order ACL LIST's single-command rules take). */
    private final List<Entry> commands;

    private AclCatalog(List<Entry> entries) {
        this.entries = entries;
        this.byName = new HashMap<>();
        List<Entry> top = new ArrayList<>();
        for (Entry e : entries) {
            byName.put(e.name, e);
            if (e.parent < 0) {
                top.add(e);
            }
        }
        this.commands = List.copyOf(top);
    }

    private static AclCatalog load() {
        try (InputStream in = AclCatalog.class.getResourceAsStream("acl-commands.txt")) {
            if (in == null) {
                throw new IllegalStateException("acl-commands.txt is missing from the server's jar");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            TreeMap<String, String[]> lines = new TreeMap<>();
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    String[] parts = line.split(" \\| ");
                    lines.put(parts[0].split(" ")[0], parts);
                }
            }
            Map<String, Integer> ids = new HashMap<>();
            lines.keySet().forEach(n -> ids.put(n, ids.size()));
            List<Entry> entries = new ArrayList<>();
            Map<Integer, List<Integer>> children = new HashMap<>();
            for (var e : lines.entrySet()) {
                String name = e.getKey();
                int bar = name.indexOf('|');
                if (bar > 0) {
                    children.computeIfAbsent(ids.get(name.substring(0, bar)), k -> new ArrayList<>()).add(ids.get(name));
                }
            }
            for (var e : lines.entrySet()) {
                String name = e.getKey();
                String[] head = e.getValue()[0].split(" ");
                long cats = 0;
                for (int i = 1; i < head.length; i++) {
                    cats |= 1L << CATEGORIES.indexOf(head[i]);
                }
                List<AclKeySpec> specs = new ArrayList<>();
                for (int i = 1; i < e.getValue().length; i++) {
                    specs.add(AclKeySpec.parse(e.getValue()[i]));
                }
                int bar = name.indexOf('|');
                int id = ids.get(name);
                entries.add(new Entry(id, name, cats, bar > 0 ? ids.get(name.substring(0, bar)) : -1,
                        List.copyOf(children.getOrDefault(id, List.of())), List.copyOf(specs)));
            }
            return new AclCatalog(List.copyOf(entries));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return how many commands and subcommands there are: a command set's bits */
    int size() {
        return entries.size();
    }

    Entry entry(int id) {
        return entries.get(id);
    }

    /** @return the command or subcommand ({@code config|get}) of that lower-case name, or null */
    Entry find(String name) {
        return byName.get(name);
    }

    /** @return the top-level commands, by name */
    List<Entry> commands() {
        return commands;
    }

    List<Entry> all() {
        return entries;
    }

    /** @return the bit of category {@code name} (lower-case), or 0 for none */
    static long category(String name) {
        int i = CATEGORIES.indexOf(name);
        return i < 0 ? 0 : 1L << i;
    }

    /** @return COMMAND INFO's categories of {@code name} ({@code @read}, ...), none for a name Redis does not know */
    List<String> categoryNames(String name) {
        Entry e = byName.get(name);
        List<String> out = new ArrayList<>();
        for (int i = 0; e != null && i < CATEGORIES.size(); i++) {
            if ((e.categories & 1L << i) != 0) {
                out.add("@" + CATEGORIES.get(i));
            }
        }
        return out;
    }
}
