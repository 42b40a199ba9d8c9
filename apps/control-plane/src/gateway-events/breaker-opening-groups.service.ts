import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { GATEWAY_EVENT_UPDATED, type AnyGatewayEvent } from './gateway-event';
import { GatewayEventPublisher } from './gateway-event-publisher.service';

/** How long the first report of an opening waits for the other data planes' before it is passed on (Alertmanager's group_wait). */
export const BREAKER_GROUP_WAIT_MS = 2000;
/** Breakers grouped at once at most (a flood of distinct breakers must not grow this without bound). */
const MAX_GROUPS = 10_000;

interface Group {
  event: AnyGatewayEvent;
  instanceIds: string[];
  openedAt: number;
  sent: boolean;
  timer: NodeJS.Timeout;
}

/**
 * One breaker opening reported by several data planes is one `circuit_breaker.opened` event with
 * `data.instanceIds` (every data plane has its own breaker for the same route). Reports of the same
 * breaker within the group window (settings `events.breakerGroupWindow`, the breaker's open timeout
 * by default 30 s) join the first one's group: those within BREAKER_GROUP_WAIT_MS are in the event
 * as delivered; later ones update the stored event only. The group keeps the first report's id, so
 * every control-plane instance (each hears every report, in the bus's order) raises the same event
 * id, and the store and the webhook queue dedupe it.
 */
@Injectable()
export class BreakerOpeningGroups implements OnApplicationShutdown {
  private readonly groups = new Map<string, Group>();
  private windowMs = 30_000;

  constructor(
    private readonly publisher: GatewayEventPublisher,
    private readonly emitter: EventEmitter2,
  ) {}

  configure(windowMs: number): void {
    this.windowMs = windowMs;
  }

  onApplicationShutdown(): void {
    for (const group of this.groups.values()) clearTimeout(group.timer);
    this.groups.clear();
  }

  add(report: AnyGatewayEvent): void {
    const breaker = typeof report.data['breaker'] === 'string' ? report.data['breaker'] : report.id;
    const instanceId = typeof report.data['instanceId'] === 'string' ? report.data['instanceId'] : 'unknown';
    const now = Date.now();
    const group = this.groups.get(breaker);
    if (group !== undefined && now - group.openedAt < this.windowMs) {
      if (group.instanceIds.includes(instanceId)) return;
      group.instanceIds.push(instanceId);
      if (group.sent) this.emitter.emit(GATEWAY_EVENT_UPDATED, this.grouped(group));
      return;
    }
    if (group !== undefined) clearTimeout(group.timer);
    const created: Group = {
      event: report,
      instanceIds: [instanceId],
      openedAt: now,
      sent: false,
      timer: setTimeout(() => this.send(breaker), BREAKER_GROUP_WAIT_MS),
    };
    created.timer.unref();
    this.groups.set(breaker, created);
    if (this.groups.size > MAX_GROUPS) this.forgetOldest();
  }

  private send(breaker: string): void {
    const group = this.groups.get(breaker);
    if (group === undefined || group.sent) return;
    group.sent = true;
    this.publisher.forward(this.grouped(group));
    // Kept for the rest of the window so later reports join it; then forgotten.
    group.timer = setTimeout(() => {
      if (this.groups.get(breaker) === group) this.groups.delete(breaker);
    }, Math.max(0, this.windowMs - BREAKER_GROUP_WAIT_MS));
    group.timer.unref();
  }

  private grouped(group: Group): AnyGatewayEvent {
    return { ...group.event, data: { ...group.event.data, instanceIds: [...group.instanceIds] } };
  }

  private forgetOldest(): void {
    const [breaker, group] = this.groups.entries().next().value as [string, Group];
    clearTimeout(group.timer);
    if (!group.sent) this.publisher.forward(this.grouped(group));
    this.groups.delete(breaker);
  }
}
