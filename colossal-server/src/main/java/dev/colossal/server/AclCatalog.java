package dev.colossal.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Redis 7.0's commands as ACL sees them: every command and subcommand ({@code config|get}) with a
 * number (its bit in a user's command set), its categories and its {@link CommandFacts} (whose key
 * specs decide which keys it names).
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
    record Entry(int id, String name, long categories, int parent, List<Integer> children, CommandFacts.Entry facts) {
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
        // ids in name order, which ACL's command bits need stable
        java.util.TreeMap<String, CommandFacts.Entry> byName = new java.util.TreeMap<>();
        CommandFacts.REDIS.all().forEach(e -> byName.put(e.name(), e));
        Map<String, Integer> ids = new HashMap<>();
        byName.keySet().forEach(n -> ids.put(n, ids.size()));
        List<Entry> entries = new ArrayList<>();
        for (CommandFacts.Entry e : byName.values()) {
            long cats = 0;
            for (String c : e.categories()) {
                cats |= category(c);
            }
            List<Integer> children = e.subcommands().stream().map(ids::get).toList();
            int bar = e.name().indexOf('|');
            entries.add(new Entry(ids.get(e.name()), e.name(), cats, bar > 0 ? ids.get(e.name().substring(0, bar)) : -1,
                    children, e));
        }
        return new AclCatalog(List.copyOf(entries));
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
