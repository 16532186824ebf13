"""Small edits of a base world that several scenario families share."""

from __future__ import annotations

from datetime import timedelta

from cluster_simulator import base
from cluster_simulator.world import Json, World

FAILED_NODE = base.instance_id(3)  # a gpu-workers node in both base worlds
UNKNOWN_NODE = "i-0deadbeefdeadbeef"
REPLACED_NODE = "i-0feedfacefeedface"  # a gpu-workers node HyperPod has since replaced
NEVER_JOINED = "i-0badcafebadcafe00"  # a gpu-workers launch that failed for capacity


def set_status(world: World, instance: str, status: str, message: str) -> None:
    for node in world.nodes:
        if node["InstanceId"] == instance:
            node["InstanceStatus"] = {"Status": status, "Message": message}
    if instance in world.node_details:
        world.node_details[instance]["InstanceStatus"] = {"Status": status, "Message": message}


def group_of(world: World, instance: str) -> str:
    return str(next(n for n in world.nodes if n["InstanceId"] == instance)["InstanceGroupName"])


def write_log(world: World, stream: str, lines: list[str], start: timedelta) -> None:
    """Replace a stream's events with `lines`, written `start` before the recording time."""
    moment = base.RECORDED_AT - start
    world.log_events[stream] = [
        {"timestamp": base.ms(moment + timedelta(seconds=i)), "message": line}
        for i, line in enumerate(lines)
    ]


def add_event(world: World, event_id: str, instance: str, level: str, description: str) -> Json:
    event: Json = {
        "EventId": event_id,
        "ClusterArn": world.cluster["ClusterArn"],
        "ClusterName": world.cluster["ClusterName"],
        "InstanceGroupName": group_of(world, instance),
        "InstanceId": instance,
        "ResourceType": "Instance",
        "EventTime": base.iso(base.RECORDED_AT - timedelta(minutes=50)),
        "Description": description,
        "EventLevel": level,
    }
    world.events.insert(0, event)  # ListClusterEvents answers newest first
    return event
