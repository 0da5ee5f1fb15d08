package dev.colossal.server;

/**
 * CLIENT REPLY's state: which command's reply the connection drops. Redis drops whatever a dropped
 * command answers, its errors too, but not pushes that arrive between commands (published messages,
 * tracking's invalidations); so does the connection, which cuts the reply back after the command.
 */
enum ReplyMode {
    /** Every reply is sent. */
    ON,
    /** No reply is sent until CLIENT REPLY ON. */
    OFF,
    /** The command running is CLIENT REPLY SKIP: its reply and the next command's are dropped. */
    SKIP_NEXT,
    /** This command's reply is dropped, the ones after it are sent. */
    SKIP_THIS;

    /** @return the mode for the next command, once a command's reply was dropped under this one */
    ReplyMode next() {
        return switch (this) {
            case SKIP_NEXT -> SKIP_THIS;
            case SKIP_THIS -> ON;
            default -> this;
        };
    }
}
