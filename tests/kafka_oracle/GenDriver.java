import java.util.Arrays;
public class GenDriver {
    public static void main(String[] a) throws Exception {
        org.apache.kafka.message.MessageGenerator.processDirectories(a[0], a[1], a[2],
            a[3].isEmpty() ? Arrays.asList() : Arrays.asList(a[3].split(",")), Arrays.asList("MessageDataGenerator", "JsonConverterGenerator"));
    }
}
