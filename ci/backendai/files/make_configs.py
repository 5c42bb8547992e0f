"""Write the manager's etcd config, volume config and fixtures for the test stack (called by up.sh).

Starts from the 23.09.10 samples in this folder and changes only what a one-host test stack needs."""
import json
import sys

files, m, redis_port, spc, spm = sys.argv[1:]

c = json.load(open(f"{files}/sample.etcd.config.json"))
c["redis"] = {"addr": f"127.0.0.1:{redis_port}"}
c.pop("docker", None)  # an empty registry map cannot be stored in etcd; the defaults apply
c.setdefault("plugins", {})["accelerator"] = {}  # no GPUs here
json.dump(c, open(f"{m}/etcd.config.json", "w"), indent=1)

v = json.load(open(f"{files}/sample.etcd.volumes.json"))
v["proxies"]["local"].update(client_api=f"http://127.0.0.1:{spc}", manager_api=f"http://127.0.0.1:{spm}",
                             secret="bai-stack-storage-secret", ssl_verify="false")
json.dump(v, open(f"{m}/volumes.json", "w"), indent=1)

# users: allow the vfolder host and the local image registry everywhere
u = json.load(open(f"{files}/example-users.json"))
perms = ["create-vfolder", "modify-vfolder", "delete-vfolder", "mount-in-session", "upload-file",
         "download-file", "invite-others", "set-user-specific-permission"]
for d in u["domains"]:
    d["allowed_vfolder_hosts"] = {"local:volume1": perms}
    d["allowed_docker_registries"] = ["local"]
for g in u["groups"]:
    g["allowed_vfolder_hosts"] = {"local:volume1": perms}
json.dump(u, open(f"{m}/example-users.json", "w"), indent=1)

# keypairs: multi-container sessions (srun across nodes) and room for parallel tests
k = json.load(open(f"{files}/example-keypairs.json"))
for p in k["keypair_resource_policies"]:
    p["max_containers_per_session"] = 8
    p["max_concurrent_sessions"] = 20
json.dump(k, open(f"{m}/example-keypairs.json", "w"), indent=1)
