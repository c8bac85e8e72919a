/*
 * Node-aware aggregation, Phase 1: which process of a node gathers what the node sends to
 * another node, and which process of that node receives it and hands it out (after the
 * locality-aware exchanges of Bienz, Gropp and Olson and of MPI Advance, for every collective).
 *
 * For each ordered pair of nodes (A, B) with an edge from A to B, one process of A, L(A, B),
 * sends everything A's processes send to B's processes in one message to one process of B,
 * R(B, A), which hands the blocks on to their targets with the rest of what it holds for
 * them. A call then runs three communication rounds:
 *
 *   round 0  every process sends L(A, B) its blocks for B's processes (on-node)
 *   round 1  L(A, B) sends R(B, A) one message with all of them (between nodes); an allgather
 *            block that several processes of B need crosses once
 *   final    every process sends each target of its node one message with all it holds for
 *            it: from R's roles, and its own blocks for processes of its node
 *
 * which is a forwarding pattern (combine.h's structure, several exchanges per round), so the
 * schedule, the size pass of the v and w collectives and the reductions are combine's
 * (schedule/combine.c). Edges that combine keeps direct (duplicates, self loops, MPI_PROC_NULL)
 * stay direct here too.
 *
 * Who is responsible is spread by volume: each node's leader (its lowest rank) collects its
 * processes' volumes to and from every other node (the edge weights where the topology has
 * them, so a halo exchange that states its sizes is balanced by bytes, else one per edge),
 * and hands the node pairs, largest first, to the process with the least volume so far, the
 * sending and the receiving roles together. Leaders tell each other their choices and their
 * processes the whole table.
 *
 * Cost: 7 supersteps. A process sends its leader one message and each process responsible
 * for one of its destination nodes one; a leader sends one message per node it exchanges
 * with and one per process of its node; L(A, B) one to R(B, A); every process one to each
 * target of its final round, which lets targets check what they will receive.
 *
 * node-tree, for small blocks: round 0 and the final round of node cost a process one
 * message per process of its node that it exchanges blocks with (up to k - 1 for k processes
 * per node), which is most of node's time where blocks are small and k large. node-tree
 * moves the same records along a hypercube of the node's processes instead: log2 k rounds of
 * one message each gather a node's blocks for B at L(A, B) (records for one target merge on
 * the way, so an allgather block goes once), L(A, B) sends R(B, A) one message, and log2 k
 * rounds hand the arrivals, and the node's own blocks for its processes, to their targets;
 * a node of k processes that is not a power of two first folds its processes above the
 * largest power of two P2 onto the first P2, and unfolds at the end. 2 log2 P2 + 3 rounds,
 * every block copied once per hop. Phase 1 takes 7 + 2 log2 P2 supersteps of at most one
 * message per process each, except the network one.
 */
#ifndef NHOOD_PATTERN_NODE_H
#define NHOOD_PATTERN_NODE_H

#include <mpi.h>

#include "common/nodes.h"
#include "nhood.h"
#include "pattern/bsp.h"
#include "pattern/kind.h"
#include "pattern/combine.h"

/* node's and node-tree's kinds of pattern (pattern/kind.h). */
extern nhood_pattern_kind nhood_node_kind, nhood_node_tree_kind;

/* Phase 1 over MPI, collectively over comm (private to the library), for this process's
 * topology; nodes maps comm's ranks to nodes; tree: node-tree's pattern, else node's. The
 * pattern has nrounds 0 where no process has an edge to another node (the algorithm does not
 * apply). stats is optional. */
int nhood_node_build_mpi(MPI_Comm comm, int tag, NHOOD_Topo topo, const nhood_nodes *nodes, int tree,
                         nhood_combine_pattern *pattern, nhood_bsp_stats *stats);

/* Phase 1 in this process for nranks virtual ranks (topos[r] is rank r's topology, nodes maps
 * them); patterns[r] receives rank r's pattern. Makes no MPI call. */
int nhood_node_build_local(int nranks, const NHOOD_Topo topos[], const nhood_nodes *nodes, int tree,
                           nhood_combine_pattern patterns[], nhood_bsp_stats *stats);

#endif
