package dev.colossal.server;

import java.util.Map;
import java.util.Set;

/**
 * The name CLIENT LIST and CLIENT INFO show as a connection's {@code cmd=}, as Redis 7.0 names it:
 * a container command with its subcommand ({@code client|list}, {@code config|get}), and
 * {@code NULL} for a command or subcommand Redis does not know. Redis sets it when it looks the
 * command up, before checking arity, authentication or a MULTI queue, so a refused or queued
 * command shows too.
 */
final class LastCommand {

    /** Redis 7.0.15's subcommands of each container, Redis knowing them whether we do or not; CLUSTER refuses each of its own alike. */
    private static final Map<String, Set<String>> SUBCOMMANDS = subcommandsByContainer();

    static final String NONE = "NULL";

    /** @return Redis 7.0's subcommands of {@code container}, none for a command that is not one */
    static Set<String> subcommands(String container) {
        return SUBCOMMANDS.getOrDefault(container, Set.of());
    }

    /** @return Redis 7.0's subcommands of {@code container}, or null for a command that is not one */
    static Set<String> subcommandsOrNull(String container) {
        return SUBCOMMANDS.get(container);
    }

    private LastCommand() {
    }

    private static Map<String, Set<String>> subcommandsByContainer() {
        Map<String, Set<String>> out = new java.util.HashMap<>();
        for (CommandFacts.Entry e : CommandFacts.REDIS.all()) {
            if (!e.subcommands().isEmpty()) {
                out.put(e.name(), e.subcommands().stream().map(s -> s.substring(s.indexOf('|') + 1))
                        .collect(java.util.stream.Collectors.toUnmodifiableSet()));
            }
        }
        return Map.copyOf(out);
    }

    /** Subcommands this server answers that Redis 7.0 does not know (Redis 7.2's, which clients send at connect). */
    private static final Set<String> ADDED = Set.of("client|setinfo", "client|no-touch");

    /**
     * @return whether {@code args} name a container's subcommand neither Redis 7.0 nor this server
     *     knows, which Redis refuses as it looks the command up: before arity, ACL or a MULTI queue
     */
    static boolean unknownSubcommand(CommandSpec spec, byte[][] args) {
        Set<String> subs = spec.subcommands();
        if (subs == null || args.length < 2) {
            return false;
        }
        String sub = Args.lower(args[1]);
        return !subs.contains(sub) && !ADDED.contains(spec.name() + "|" + sub);
    }

    /** @return whether {@code sub} is one of Redis 7.0's subcommands of {@code container} (any case) */
    static boolean isSubcommand(String container, byte[] sub) {
        Set<String> subs = SUBCOMMANDS.get(container);
        return subs != null && subs.contains(Args.lower(sub));
    }

    /**
     * @param spec the command found for {@code args[0]}, null if none
     * @param args the request, name first
     * @return what {@code cmd=} shows for it
     */
    static String of(CommandSpec spec, byte[][] args) {
        if (spec == null) {
            return NONE;
        }
        Set<String> subs = spec.subcommands();
        if (subs == null || args.length < 2) {
            return spec.name();
        }
        String sub = Args.lower(args[1]);
        return subs.contains(sub) ? spec.name() + "|" + sub : NONE;
    }
}
