package allocorpool.echo;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Parsing of option values, each failure a UsageException naming the option and what it accepts. */
final class Args {
    private Args() {}

    static String value(String[] args, int i) throws UsageException {
        if (i + 1 >= args.length) {
            throw new UsageException(args[i] + " needs a value");
        }
        return args[i + 1];
    }

    static <E extends Enum<E>> E choice(String option, String text, Class<E> type) throws UsageException {
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equalsIgnoreCase(text)) {
                return constant;
            }
        }
        String valid = Arrays.stream(type.getEnumConstants()).map(e -> e.name().toLowerCase(Locale.ROOT))
                .collect(Collectors.joining(", "));
        throw new UsageException(option + " " + text + ": not one of " + valid);
    }

    static int integer(String option, String text, int min, int max) throws UsageException {
        try {
            int value = Integer.parseInt(text);
            if (value >= min && value <= max) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(option + " " + text + ": not a whole number from " + min + " to " + max);
    }

    static double seconds(String option, String text, double min) throws UsageException {
        try {
            double value = Double.parseDouble(text);
            if (Double.isFinite(value) && value >= min && value <= 86_400) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(option + " " + text + ": not a number of seconds from " + min + " to 86400");
    }

    static boolean onOff(String option, String text) throws UsageException {
        if (text.equals("on")) {
            return true;
        }
        if (text.equals("off")) {
            return false;
        }
        throw new UsageException(option + " " + text + ": not one of on, off");
    }
}
