package dev.colossal.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What Redis 7.0.15's COMMAND DOCS says of each command (summary, since, group, complexity,
 * history, arguments, subcommands), read from the resource {@code redis-docs.txt} (facts queried
 * from a running redis-server), and written back as RESP: tools such as RedisInsight build their
 * command help and argument hints from it.
 */
final class CommandDocs {

    /**
     * A value of the tree: {@code $} bulk text, {@code +} status text, {@code :} integer, or
     * {@code %} map, {@code *} array, {@code ~} set of {@code children} (a map's fields are named).
     */
    private record Node(String name, char type, String text, List<Node> children) {
    }

    static final CommandDocs REDIS = load("redis-docs.txt");

    private final Map<String, Node> byName;

    private CommandDocs(Map<String, Node> byName) {
        this.byName = byName;
    }

    /** @return whether there are docs for the command or subcommand {@code name} ({@code config|get}) */
    boolean has(String name) {
        return find(name) != null;
    }

    /** Writes the docs of the command or subcommand {@code name} (its map, without its name). */
    void reply(String name, Reply r) {
        write(find(name), r);
    }

    private Node find(String name) {
        int bar = name.indexOf('|');
        if (bar < 0) {
            return byName.get(name);
        }
        Node container = byName.get(name.substring(0, bar));
        if (container == null) {
            return null;
        }
        for (Node field : container.children) {
            if (field.name.equals("subcommands")) {
                for (Node sub : field.children) {
                    if (sub.name.equals(name)) {
                        return sub;
                    }
                }
            }
        }
        return null;
    }

    private static void write(Node n, Reply r) {
        switch (n.type) {
            case '$' -> r.bulk(n.text);
            case '+' -> r.simple(n.text);
            case ':' -> r.integer(Long.parseLong(n.text));
            case '%' -> {
                r.map(n.children.size());
                for (Node c : n.children) {
                    r.bulk(c.name);
                    write(c, r);
                }
            }
            case '*' -> {
                r.array(n.children.size());
                n.children.forEach(c -> write(c, r));
            }
            case '~' -> {
                r.set(n.children.size());
                n.children.forEach(c -> write(c, r));
            }
            default -> throw new IllegalStateException("redis-docs.txt: unknown type mark: type=" + n.type);
        }
    }

    private static CommandDocs load(String resource) {
        try (InputStream in = CommandDocs.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the server's jar");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            Map<String, Node> top = new HashMap<>();
            Deque<Node> open = new ArrayDeque<>(); // the containers of the line being read, innermost first
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                int depth = 0;
                while (line.charAt(depth) == ' ') {
                    depth++;
                }
                int space = line.indexOf(' ', depth);
                char type = line.charAt(space + 1);
                boolean container = type == '%' || type == '*' || type == '~';
                Node n = new Node(line.substring(depth, space), type, container ? null : line.substring(space + 2),
                        container ? new ArrayList<>() : List.of());
                while (open.size() > depth) {
                    open.pop();
                }
                if (depth == 0) {
                    top.put(n.name, n);
                } else {
                    open.peek().children.add(n);
                }
                if (container) {
                    open.push(n);
                }
            }
            return new CommandDocs(top);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
