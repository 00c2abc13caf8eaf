"""Independent Schema Registry client for the wire-compatibility test: Confluent's own Python
SchemaRegistryClient + AvroSerializer/AvroDeserializer talking to the project's broker and registry.

  produce --topic T --turn-id ID --schema ChatTurn.avsc   register (auto) and produce one ChatTurn
  consume --topic T --turn-id ID                          consume until that turn, print it as JSON
"""
import argparse
import datetime
import json
import sys
import time

from confluent_kafka import DeserializingConsumer, SerializingProducer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import StringDeserializer, StringSerializer


def produce(args, registry):
    with open(args.schema) as f:
        schema = f.read()
    serializer = AvroSerializer(registry, schema, conf={"auto.register.schemas": True})
    producer = SerializingProducer({
        "bootstrap.servers": args.bootstrap,
        "key.serializer": StringSerializer("utf_8"),
        "value.serializer": serializer,
        "enable.idempotence": True,
    })
    turn = {
        "conversation_id": "py-conv-1",
        "turn_id": args.turn_id,
        "user_id": "py-user",
        "question": "¿Cuál es el plazo de devolución? (from Python)",
        "locale": "es-ES",
        "channel": "chat",
        "session_region": "eu",
        "billing_region": None,
        "ip_region": "us",
        "purchase_at": datetime.datetime(2026, 1, 15, 10, 0, tzinfo=datetime.timezone.utc),
        "order_id": "o-1",
        "employee_id": None,
        "sent_at": datetime.datetime(2026, 11, 1, 12, 0, tzinfo=datetime.timezone.utc),
        "order_facts": {"item_category": "electronics"},
    }
    errors = []
    producer.produce(args.topic, key=turn["conversation_id"], value=turn,
                     on_delivery=lambda err, msg: err and errors.append(err))
    producer.flush(30)
    if errors:
        sys.exit(f"delivery failed: {errors}")


def millis(value):
    if isinstance(value, datetime.datetime):
        return int(value.timestamp() * 1000)
    return value


def consume(args, registry):
    consumer = DeserializingConsumer({
        "bootstrap.servers": args.bootstrap,
        "group.id": f"py-interop-{args.turn_id}",
        "auto.offset.reset": "earliest",
        "key.deserializer": StringDeserializer("utf_8"),
        "value.deserializer": AvroDeserializer(registry),
    })
    consumer.subscribe([args.topic])
    deadline = time.time() + 60
    try:
        while time.time() < deadline:
            msg = consumer.poll(1.0)
            if msg is None or msg.error():
                continue
            value = msg.value()
            if value.get("turn_id") == args.turn_id:
                value = {k: millis(v) for k, v in value.items()}
                print(json.dumps({"key": msg.key(), "value": value}))
                return
        sys.exit("turn not found within 60 s")
    finally:
        consumer.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["produce", "consume"])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--registry", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--turn-id", required=True)
    parser.add_argument("--schema")
    args = parser.parse_args()
    registry = SchemaRegistryClient({"url": args.registry})
    (produce if args.mode == "produce" else consume)(args, registry)


if __name__ == "__main__":
    main()
